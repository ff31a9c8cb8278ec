// A registration driver obtains a credential; the register secret controller (./secret-controller.ts)
// persists it. Only the CSR driver exists in ocm-ts (spoke-agent.md §10); `awsirsa` and `grpc` are
// refused at start.

import type { Condition } from '../../api/meta.js';
import type { Secret } from '../../api/core.js';

export interface ProcessOutcome {
  /** Secret to save (data keys base64 like the API object); undefined = nothing to save now. */
  secret?: Secret;
  /** Condition for the status updater (ClusterCertificateRotated). */
  condition?: Condition;
  /** Failure: the controller requeues with backoff. */
  error?: Error;
}

export interface RegisterDriver {
  /** One step of getting a credential into `secret` (§10.3); never throws, returns `error` instead. */
  process(controllerName: string, secret: Secret, additionalData: Readonly<Record<string, Buffer>>, signal: AbortSignal): Promise<ProcessOutcome>;
}

/** Writes a condition on the object the credential belongs to (§9 status updaters). */
export type StatusUpdater = (condition: Condition, signal: AbortSignal) => Promise<void>;

/** The bootstrap status updater (D): no-op. */
export const noopStatusUpdater: StatusUpdater = async () => {};
