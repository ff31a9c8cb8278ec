// A registration driver obtains a credential; the register secret controller (./secret-controller.ts)
// persists it. ocm-ts has the CSR driver and the gRPC driver (./grpc/: the same CSR flow with the
// gRPC signer, over CloudEvents); OCM's `awsirsa` driver is refused at start.

import type { Condition } from '../../api/meta.js';
import type { Secret } from '../../api/core.js';

export interface ProcessOutcome {
  /** Secret to save (data keys base64 like the API object); undefined = nothing to save now. */
  secret?: Secret;
  /** Condition for the status updater (ClusterCertificateRotated). */
  condition?: Condition;
  /** Failure: the controller requeues with backoff. */
  error?: Error;
  /** Nothing to do now, but look again after this long (the certificate's rotation time). */
  recheckAfterMs?: number;
}

export interface RegisterDriver {
  /**
   * One step of getting a credential into `secret` (create a CSR, or collect its certificate); never
   * throws, returns `error` instead.
   */
  process(controllerName: string, secret: Secret, additionalData: Readonly<Record<string, Buffer>>, signal: AbortSignal): Promise<ProcessOutcome>;
  /**
   * True while a request for a credential is out (a CSR waiting for its certificate): the secret then
   * only serves as the base the credential is written into, and the controller may read it from its
   * cache (a stale copy fails the save, which is retried from a live read).
   */
  awaitingCredential?(): boolean;
}

/** Writes a condition on the object the credential belongs to (the cluster, or the addon). */
export type StatusUpdater = (condition: Condition, signal: AbortSignal) => Promise<void>;

/** The status updater of the bootstrap phase (BootstrapController): no-op, nothing is written on the hub then. */
export const noopStatusUpdater: StatusUpdater = async () => {};
