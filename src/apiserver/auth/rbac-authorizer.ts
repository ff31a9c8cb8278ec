// The authorization chain of kube-apiserver (privileged group, then RBAC): group `system:masters`
// is allowed everything; otherwise RBAC allows when a rule reachable from one of the user's
// bindings matches, and has no opinion otherwise (the server answers 403).
//
// Roles and bindings are read from the store once (lazily, on the first decision) and then kept
// current through a watch on the RBAC prefix. Like kube-apiserver's informer-fed RBAC, a change
// becomes effective when its watch event is delivered (the store delivers asynchronously, right
// after the commit), not inside the writing request.

import type { Authorizer, AuthorizationDecision, RequestAttributes } from '../pipeline.js';
import type { Store, WatchSubscription } from '../storage/types.js';
import type { Logger } from '../../util/logger.js';
import { nullLogger } from '../../util/logger.js';
import { RbacIndex, RBAC_GROUP } from './rbac-index.js';

export const MASTERS_GROUP = 'system:masters';

export interface RbacAuthorizer extends Authorizer {
  /** Read the store and start watching now (otherwise done on the first decision). */
  start(): void;
  /** Stop watching the store. */
  stop(): void;
  /** The live index (SelfSubjectRulesReview, tests). */
  readonly index: RbacIndex;
}

export interface AuthorizerOptions {
  log?: Logger;
}

export function createAuthorizer(store: Store, opts: AuthorizerOptions = {}): RbacAuthorizer {
  const log = opts.log ?? nullLogger();
  const index = new RbacIndex();
  const prefix = `/${RBAC_GROUP}/`;
  let sub: WatchSubscription | undefined;
  let synced = false;
  let stopped = false;

  const sync = (): void => {
    sub?.close();
    sub = undefined;
    index.clear();
    const listed = store.list(prefix);
    for (const item of listed.items) index.put(item.key, item.object);
    sub = store.watch(prefix, {
      fromRevision: listed.revision,
      onEvent: (ev) => {
        if (ev.type === 'DELETED') index.remove(ev.key);
        else index.put(ev.key, ev.object);
      },
      onClose: (reason) => {
        if (stopped) return;
        log.warn('rbac watch closed; will re-list on the next authorization', { reason });
        synced = false;
      },
    });
    synced = true;
    log.debug('rbac index synced', { revision: listed.revision, ...index.size });
  };

  const ensureSynced = (): void => {
    if (synced || stopped) return;
    sync();
  };

  return {
    index,
    start: ensureSynced,
    stop() {
      stopped = true;
      sub?.close();
      sub = undefined;
    },
    authorize(attrs: RequestAttributes): { decision: AuthorizationDecision; reason: string } {
      if (attrs.user.groups.includes(MASTERS_GROUP)) return { decision: 'allow', reason: '' };
      ensureSynced();
      const d = index.evaluate(attrs);
      return d.allowed ? { decision: 'allow', reason: d.reason } : { decision: 'noOpinion', reason: '' };
    },
  };
}
