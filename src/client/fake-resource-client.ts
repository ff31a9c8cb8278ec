// An in-memory ResourceClient whose list and watch answers are scripted by a test: each list()
// takes the next scripted answer; each watch() opens a WatchChannel the test feeds, ends or fails.
// Used by the informer's unit tests and available to controller tests.

import type { KubeList, KubeObject, WatchEvent } from '../api/meta.js';
import type { ListCallOptions, ResourceClient, ResourceType, WatchCallOptions } from './types.js';

export class WatchChannel<T extends KubeObject> implements AsyncIterable<WatchEvent<T>> {
  private readonly items: Array<WatchEvent<T>> = [];
  private ended = false;
  private failure: Error | undefined;
  private wake: (() => void) | undefined;
  constructor(readonly opts: WatchCallOptions) {
    opts.signal?.addEventListener('abort', () => this.fail(Object.assign(new Error('aborted'), { name: 'AbortError' })), { once: true });
  }
  push(ev: WatchEvent<T>): void {
    this.items.push(ev);
    this.wake?.();
  }
  end(): void {
    this.ended = true;
    this.wake?.();
  }
  fail(err: Error): void {
    this.failure = err;
    this.wake?.();
  }
  async *[Symbol.asyncIterator](): AsyncGenerator<WatchEvent<T>> {
    for (;;) {
      if (this.failure) throw this.failure;
      const next = this.items.shift();
      if (next) {
        yield next;
        continue;
      }
      if (this.ended) return;
      await new Promise<void>((r) => (this.wake = r));
      this.wake = undefined;
    }
  }
}

export type ListAnswer<T extends KubeObject> = { items: T[]; resourceVersion: string; continue?: string } | Error;

export class FakeResourceClient<T extends KubeObject = KubeObject> implements ResourceClient<T> {
  readonly lists: ListCallOptions[] = [];
  readonly watches: Array<WatchChannel<T>> = [];
  private readonly listAnswers: Array<ListAnswer<T>> = [];
  private readonly watchErrors: Error[] = [];
  constructor(
    readonly type: ResourceType,
    readonly namespace: string | undefined = undefined,
  ) {}
  /** Queues the answer of a future list() call. */
  answerList(a: ListAnswer<T>): void {
    this.listAnswers.push(a);
  }
  /** Makes the next watch() call fail when iterated (e.g. an HTTP 410 or a connection error). */
  failNextWatch(err: Error): void {
    this.watchErrors.push(err);
  }
  async list(opts: ListCallOptions = {}): Promise<KubeList<T>> {
    this.lists.push(opts);
    const a = this.listAnswers.shift();
    if (a === undefined) throw new Error('FakeResourceClient: no list answer scripted');
    if (a instanceof Error) throw a;
    return { apiVersion: 'v1', kind: 'List', metadata: { resourceVersion: a.resourceVersion, ...(a.continue ? { continue: a.continue } : {}) }, items: a.items };
  }
  watch(opts: WatchCallOptions = {}): AsyncIterable<WatchEvent<T>> {
    const err = this.watchErrors.shift();
    const ch = new WatchChannel<T>(opts);
    if (err) ch.fail(err);
    this.watches.push(ch);
    return ch;
  }
  /** The most recent watch. */
  lastWatch(): WatchChannel<T> {
    const w = this.watches[this.watches.length - 1];
    if (!w) throw new Error('FakeResourceClient: no watch opened');
    return w;
  }
  get(): Promise<T> {
    return Promise.reject(new Error('FakeResourceClient.get not scripted'));
  }
  create(): Promise<T> {
    return Promise.reject(new Error('FakeResourceClient.create not scripted'));
  }
  update(): Promise<T> {
    return Promise.reject(new Error('FakeResourceClient.update not scripted'));
  }
  updateStatus(): Promise<T> {
    return Promise.reject(new Error('FakeResourceClient.updateStatus not scripted'));
  }
  updateSubresource(): Promise<T> {
    return Promise.reject(new Error('FakeResourceClient.updateSubresource not scripted'));
  }
  patch(): Promise<T> {
    return Promise.reject(new Error('FakeResourceClient.patch not scripted'));
  }
  delete(): Promise<void> {
    return Promise.reject(new Error('FakeResourceClient.delete not scripted'));
  }
}
