// A ServiceAccount token request over CloudEvents, as OCM's agent makes one for an add-on's token:
// subscribe to token request events for the cluster, publish the request under a fresh uid once
// the subscription is registered, and take the answer the hub sends back with that uid. The
// request gives up after a timeout.

import type { KubeObject } from '../../../api/meta.js';
import type { CloudEventsClient } from '../../../grpc/client.js';
import { decodeObject, encodeObject } from '../../../grpc/codecs.js';
import { dataTypes } from '../../../grpc/event-types.js';
import type { Clock } from '../../../util/clock.js';
import { errorMessage } from '../../../util/errors.js';
import { isPlainObject } from '../../../util/merge-patch.js';
import { apiError } from './stored-resource-client.js';

/** `/api/v1/namespaces/<ns>/serviceaccounts/<name>/token`. */
export const TOKEN_REQUEST_PATH = /^\/api\/v1\/namespaces\/([^/]+)\/serviceaccounts\/([^/]+)\/token$/;

export interface TokenRequestInput {
  client: Pick<CloudEventsClient, 'publish' | 'subscribe'>;
  clusterName: string;
  source: string;
  namespace: string;
  serviceAccount: string;
  /** The TokenRequest body the caller would have POSTed. */
  body: unknown;
  uid: string;
  timeoutMs: number;
  clock: Clock;
  signal: AbortSignal;
}

export async function requestToken(i: TokenRequestInput): Promise<KubeObject> {
  // The hub creates the token in the cluster's namespace whatever the request says.
  if (i.namespace !== i.clusterName) throw apiError(403, `token requests are only allowed in namespace ${JSON.stringify(i.clusterName)}`);
  const spec = isPlainObject(i.body) && isPlainObject(i.body['spec']) ? i.body['spec'] : {};
  const request: KubeObject = {
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'TokenRequest',
    metadata: { name: i.serviceAccount, namespace: i.clusterName, uid: i.uid },
    spec,
  };
  return new Promise<KubeObject>((resolve, reject) => {
    let settled = false;
    const finish = (err: Error | undefined, answer?: KubeObject): void => {
      if (settled) return;
      settled = true;
      timer.cancel();
      i.signal.removeEventListener('abort', onAbort);
      sub.close();
      if (err) reject(err);
      else resolve(answer!);
    };
    const timer = i.clock.setTimeout(() => finish(apiError(504, `timed out waiting for the token of ServiceAccount ${i.namespace}/${i.serviceAccount}`)), i.timeoutMs);
    const onAbort = (): void => finish(i.signal.reason instanceof Error ? i.signal.reason : new Error('aborted'));
    const sub = i.client.subscribe(
      { clusterName: i.clusterName, dataType: dataTypes.tokenRequests },
      {
        onReady: () => {
          const evt = encodeObject(request, { source: i.source, type: { dataType: dataTypes.tokenRequests, subResource: 'spec', action: 'create_request' } });
          i.client.publish(evt, { signal: i.signal }).catch((err: unknown) => finish(err instanceof Error ? err : new Error(errorMessage(err))));
        },
        onEvent: (e) => {
          let answer: KubeObject;
          try {
            answer = decodeObject(e);
          } catch {
            return;
          }
          if (answer.metadata.uid === i.uid) finish(undefined, answer);
        },
        onEnd: (err) => finish(apiError(503, `the token request subscription ended: ${errorMessage(err)}`)),
      },
    );
    if (i.signal.aborted) onAbort();
    else i.signal.addEventListener('abort', onAbort, { once: true });
  });
}
