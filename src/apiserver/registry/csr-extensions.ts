// Adapter from the certificates module (CSR create/approval/status rules, admission checks, the
// kube-apiserver-client signer) to the server's extension points.

import type { Clock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import { createCsrSigner, csrAdmissionPlugins, csrStrategy } from '../certificates/index.js';
import type { AdmissionPlugin, BuiltinController } from '../pipeline.js';
import type { Pki } from '../pki/index.js';
import type { Store } from '../storage/types.js';
import type { BuiltinStrategyOverrides } from './builtin-resources.js';

export interface CsrExtensionOptions {
  store: Store;
  pki: Pki;
  clock: Clock;
  log: Logger;
  clusterSigningDurationMs?: number;
}

export interface CsrExtensions {
  strategies: BuiltinStrategyOverrides;
  admission: AdmissionPlugin[];
  controllers: BuiltinController[];
}

export function csrExtensions(opts: CsrExtensionOptions): CsrExtensions {
  return {
    strategies: { 'certificates.k8s.io/certificatesigningrequests': csrStrategy },
    admission: csrAdmissionPlugins(),
    controllers: [createCsrSigner({
      store: opts.store, pki: opts.pki, log: opts.log, clock: opts.clock,
      ...(opts.clusterSigningDurationMs ? { clusterSigningDurationMs: opts.clusterSigningDurationMs } : {}),
    })],
  };
}
