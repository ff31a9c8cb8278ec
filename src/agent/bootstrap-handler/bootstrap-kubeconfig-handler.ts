// Bootstrap kubeconfig event handler: on the management Secret informer, a data
// change or the deletion of the bootstrap kubeconfig secret cancels the agent so that the start
// sequence re-runs with the new bootstrap kubeconfig. Adds and label/annotation-only changes are
// ignored. The decision is a pure function over whatever the informer hands over.

import { isDeepStrictEqual } from 'node:util';
import type { Secret } from '../../api/core.js';
import type { Informer } from '../../client/types.js';
import type { Logger } from '../../util/logger.js';

export type SecretEvent =
  | { type: 'add'; obj: unknown }
  | { type: 'update'; oldObj: unknown; newObj: unknown }
  | { type: 'delete'; obj: unknown };

/** A delete whose final state is unknown carries the last known object (client-go tombstone). */
interface DeletedFinalStateUnknown {
  key: string;
  obj: unknown;
}

function asSecret(v: unknown): Secret | undefined {
  if (typeof v !== 'object' || v === null) return undefined;
  const o = v as { kind?: unknown; metadata?: unknown; data?: unknown };
  if (typeof o.metadata !== 'object' || o.metadata === null) return undefined;
  if (o.kind !== undefined && o.kind !== 'Secret') return undefined;
  return v as Secret;
}

function isTombstone(v: unknown): v is DeletedFinalStateUnknown {
  return typeof v === 'object' && v !== null && 'key' in v && 'obj' in v && !('metadata' in v);
}

/** True when the event must cancel the agent. */
export function bootstrapSecretChanged(e: SecretEvent, secretName: string): boolean {
  switch (e.type) {
    case 'add':
      return false;
    case 'update': {
      const next = asSecret(e.newObj);
      if (!next || next.metadata.name !== secretName) return false;
      const prev = asSecret(e.oldObj);
      if (!prev) return false;
      return !isDeepStrictEqual(prev.data ?? {}, next.data ?? {});
    }
    case 'delete': {
      const obj = isTombstone(e.obj) ? e.obj.obj : e.obj;
      const s = asSecret(obj);
      return s !== undefined && s.metadata.name === secretName;
    }
  }
}

export interface BootstrapHandlerOptions {
  secretInformer: Informer<Secret>;
  secretName: string;
  log: Logger;
  /** Cancels the agent (in-process restart or exit). */
  cancel(reason: string): void;
}

export function registerBootstrapKubeconfigHandler(o: BootstrapHandlerOptions): void {
  const handle = (e: SecretEvent): void => {
    if (!bootstrapSecretChanged(e, o.secretName)) return;
    o.log.info('the bootstrap kubeconfig changes and rebootstrap is required, cancel the context', { secret: o.secretName, event: e.type });
    o.cancel('bootstrap kubeconfig secret changed');
  };
  o.secretInformer.addHandlers({
    onUpdate: (oldObj, newObj) => handle({ type: 'update', oldObj, newObj }),
    onDelete: (obj) => handle({ type: 'delete', obj }),
  });
}
