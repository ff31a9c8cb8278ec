// In-process fan-out of committed store events to watchers.
//
// Ordering: the store publishes each event once it is durable (right after its commit with
// per-commit durability, after the covering fsync with group commit), in revision order (writes are
// synchronous and there is one writer), and each subscriber receives events strictly in revision
// order, never twice and never with a gap. `liveStart` is then the last published revision.
//
// Start point: `subscribe` registers the subscriber *before* any history is read. Events committed
// after that point (revision > liveStart) are buffered as live events; history in
// (fromRevision, liveStart] is read from the revision log page by page, lazily, as the consumer
// drains. When the replay is done the buffered live events follow. A `lastSent` revision drops
// anything at or below what was already delivered. While a replay is in progress its cursor is
// "pinned": compaction never removes rows above the lowest pinned cursor (minPinnedRevision).
//
// Delivery and backpressure (the chosen design): callbacks, called asynchronously (never inside
// the writer's call stack), one at a time per subscriber. `onEvent` may return a promise (e.g. the
// HTTP layer returns one when `res.write()` reports a full socket buffer and resolves it on
// 'drain'); the hub then waits for it before delivering that subscriber's next event. Meanwhile
// new live events accumulate in the subscriber's bounded buffer; when more than `bufferLimit` live
// events are waiting while the subscriber is blocked (waiting for its consumer's promise, or still
// replaying history), it is dropped and gets `onClose('slow')`. A subscriber that is not blocked is
// keeping up: its queue is drained on the next turn, however large the batch of events that group
// commit published at once. Writers never wait for consumers, and one slow consumer never delays
// the others.
//
// Fan-out cost: `publish` only touches the subscribers that can want the event, found through an
// index of their key ranges and label hints (watch-index.ts), never by scanning every subscriber.
// A subscriber is indexed from the moment it subscribes (a replaying one buffers live events
// meanwhile) until it closes or is dropped. One `setImmediate` per hub (not per subscriber) drains
// every subscriber that has work, in the order they became ready; events are shared objects, never
// copied per subscriber.

import type { Logger } from '../../util/logger.js';
import type { SelectorHints, StoreEvent, WatchOptions, WatchSubscription } from './types.js';
import { createWatchIndex } from './watch-index.js';

/**
 * One step of a replay: up to `limit` logged rows with after < revision <= upTo under a prefix, in
 * revision order. `events` may leave out rows the subscriber's hints rule out (never one they
 * allow); `rows` and `lastRevision` describe what was read, so the cursor moves past skipped rows.
 */
interface ReplayPage {
  events: StoreEvent[];
  rows: number;
  lastRevision: number;
}

type ReplayReader = (prefix: string, after: number, upTo: number, limit: number, hints: SelectorHints | undefined) => ReplayPage;

/** Log rows a refill may read without finding an event before it yields to other work. */
const REPLAY_ROWS_PER_TURN = 10_000;

export interface WatchHubOptions {
  /** Most live events a subscriber may have waiting before it is dropped as slow. */
  bufferLimit: number;
  /** Rows read from the log per replay step. */
  replayPageSize: number;
  /** Events delivered to one subscriber per macrotask before yielding to I/O. */
  deliveryBatch: number;
  replay: ReplayReader;
  log: Logger;
}

export interface WatchHub {
  /**
   * Register a watcher. `liveStart` is the store's current revision at the time of the call: events
   * above it arrive through `publish`, history in (fromRevision, liveStart] is replayed first.
   */
  subscribe(prefix: string, opts: WatchOptions, liveStart: number): WatchSubscription;
  /** Hand a committed event to every matching subscriber (call in revision order). */
  publish(ev: StoreEvent): void;
  /** Lowest replay cursor in progress (rows above it must survive compaction), if any. */
  minPinnedRevision(): number | undefined;
  subscriberCount(): number;
  /** Drop every subscriber with onClose('closed'). */
  closeAll(): void;
}

interface Subscriber {
  id: number;
  prefix: string;
  opts: WatchOptions;
  /** Removes the subscriber from the publish index. */
  unindex: () => void;
  /** Replay reads revisions in (replayCursor, replayEnd]. */
  replayCursor: number;
  replayEnd: number;
  /** True until the replay's last page has been delivered; live events wait in `live` meanwhile. */
  inReplay: boolean;
  queue: StoreEvent[];
  head: number;
  live: StoreEvent[];
  lastSent: number;
  awaiting: boolean;
  scheduled: boolean;
  closed: boolean;
}

const noop = (): void => undefined;

function isThenable(v: unknown): v is PromiseLike<unknown> {
  return typeof v === 'object' && v !== null && typeof (v as { then?: unknown }).then === 'function';
}

export function createWatchHub(opts: WatchHubOptions): WatchHub {
  const subs = new Map<number, Subscriber>();
  const index = createWatchIndex<Subscriber>();
  let nextId = 1;
  /** Highest revision published so far: what an idle subscriber has seen everything up to. */
  let lastPublished = 0;
  /** Subscribers with work, drained by one setImmediate (`pump`) for the whole hub. */
  let ready: Subscriber[] = [];
  let pumpScheduled = false;

  const waitingLive = (s: Subscriber): number => s.live.length + (s.inReplay ? 0 : s.queue.length - s.head);

  const finish = (s: Subscriber, reason: 'slow' | 'closed' | undefined, sync: boolean): void => {
    if (s.closed) return;
    s.closed = true;
    subs.delete(s.id);
    s.unindex();
    s.queue = [];
    s.head = 0;
    s.live = [];
    if (reason === undefined) return;
    const onClose = s.opts.onClose;
    if (!onClose) return;
    const call = (): void => {
      try {
        onClose(reason);
      } catch (err) {
        opts.log.error('watch onClose callback threw', { key: s.prefix, err });
      }
    };
    if (sync) call();
    else setImmediate(call);
  };

  const pump = (): void => {
    pumpScheduled = false;
    const batch = ready;
    ready = [];
    for (const s of batch) drain(s);
  };

  const schedule = (s: Subscriber): void => {
    if (s.scheduled || s.closed || s.awaiting) return;
    s.scheduled = true;
    ready.push(s);
    if (!pumpScheduled) {
      pumpScheduled = true;
      setImmediate(pump);
    }
  };

  /** Refill an empty queue from the replay or the live buffer; false when nothing is pending. */
  const refill = (s: Subscriber): boolean => {
    s.queue = [];
    s.head = 0;
    // A hinted subscriber's pages may come back empty (every row was another cluster's): read on,
    // but yield after REPLAY_ROWS_PER_TURN rows so a long history never blocks the event loop.
    let budget = REPLAY_ROWS_PER_TURN;
    while (s.inReplay && s.replayCursor < s.replayEnd) {
      const page = opts.replay(s.prefix, s.replayCursor, s.replayEnd, opts.replayPageSize, s.opts.hints);
      s.replayCursor = page.rows < opts.replayPageSize ? s.replayEnd : page.lastRevision;
      s.queue = page.events;
      if (page.events.length > 0) return true;
      budget -= Math.max(1, page.rows);
      if (budget <= 0 && s.replayCursor < s.replayEnd) {
        schedule(s);
        return false;
      }
    }
    if (s.inReplay) {
      s.inReplay = false;
      s.queue = s.live;
      s.live = [];
    }
    return s.queue.length > 0;
  };

  const drain = (s: Subscriber): void => {
    s.scheduled = false;
    let budget = opts.deliveryBatch;
    while (!s.closed && !s.awaiting) {
      if (s.head >= s.queue.length && !refill(s)) return;
      if (budget-- <= 0) {
        schedule(s);
        return;
      }
      const ev = s.queue[s.head++]!;
      if (ev.revision <= s.lastSent) continue;
      s.lastSent = ev.revision;
      let result: unknown;
      try {
        result = s.opts.onEvent(ev);
      } catch (err) {
        opts.log.error('watch onEvent callback threw; dropping watcher', { key: s.prefix, err });
        finish(s, 'closed', false);
        return;
      }
      if (isThenable(result)) {
        s.awaiting = true;
        result.then(
          () => {
            s.awaiting = false;
            schedule(s);
          },
          (err: unknown) => {
            opts.log.warn('watch consumer failed; dropping watcher', { key: s.prefix, err });
            s.awaiting = false;
            finish(s, 'closed', false);
          },
        );
        return;
      }
    }
  };

  /** Hand one published event to a subscriber the index found for it. */
  const offer = (s: Subscriber, ev: StoreEvent): void => {
    if (s.closed || ev.revision <= s.lastSent) return;
    if (s.inReplay) s.live.push(ev);
    else s.queue.push(ev);
    if ((s.awaiting || s.inReplay) && waitingLive(s) > opts.bufferLimit) {
      opts.log.info('dropping slow watcher', { key: s.prefix, resourceVersion: ev.revision, buffered: waitingLive(s) });
      finish(s, 'slow', false);
      return;
    }
    schedule(s);
  };

  return {
    subscribe(prefix, wopts, liveStart) {
      const from = wopts.fromRevision;
      const replay = from > 0 && from < liveStart;
      const s: Subscriber = {
        id: nextId++,
        prefix,
        opts: wopts,
        unindex: noop,
        replayCursor: replay ? from : liveStart,
        replayEnd: liveStart,
        inReplay: replay,
        queue: [],
        head: 0,
        live: [],
        lastSent: replay ? from : Math.max(from, liveStart),
        awaiting: false,
        scheduled: false,
        closed: false,
      };
      subs.set(s.id, s);
      s.unindex = index.add(s, prefix, wopts.hints);
      if (replay) schedule(s);
      return {
        close: () => finish(s, undefined, true),
        // Publishing hands an event to its subscribers' queues at once, so a subscriber past its
        // replay with an empty queue has had every event it can want up to the last published one.
        progress: () => (!s.inReplay && s.head >= s.queue.length ? Math.max(s.lastSent, lastPublished) : s.lastSent),
      };
    },

    publish(ev) {
      if (ev.revision > lastPublished) lastPublished = ev.revision;
      index.forEachMatch(ev, offer);
    },

    minPinnedRevision() {
      let min: number | undefined;
      for (const s of subs.values()) {
        if (s.inReplay && (min === undefined || s.replayCursor < min)) min = s.replayCursor;
      }
      return min;
    },

    // counted by the publish index, so a subscriber left in it after closing would show here
    subscriberCount: () => index.size(),

    closeAll() {
      for (const s of [...subs.values()]) finish(s, 'closed', true);
    },
  };
}
