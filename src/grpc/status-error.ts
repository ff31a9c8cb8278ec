// How a Kubernetes API error crosses the gRPC hop: OCM's server answers a failed write with
// FAILED_PRECONDITION whose message is the JSON of apimachinery's StatusError (`{"ErrStatus":
// <metav1.Status>}`), and OCM's clients turn it back into the API error. Pure.

import type { Status } from '../api/meta.js';

/** The message carrying `status`. */
export function statusErrorMessage(status: Status): string {
  return JSON.stringify({ ErrStatus: status });
}

/** The Kubernetes status inside such a message; undefined for any other message. */
export function parseStatusErrorMessage(message: string): Status | undefined {
  let v: unknown;
  try {
    v = JSON.parse(message);
  } catch {
    return undefined;
  }
  const s = (v as { ErrStatus?: unknown } | null)?.ErrStatus as Partial<Status> | undefined;
  if (typeof s !== 'object' || s === null || typeof s.code !== 'number') return undefined;
  return { apiVersion: 'v1', kind: 'Status', metadata: {}, status: 'Failure', ...s } as Status;
}
