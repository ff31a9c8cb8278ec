// The cluster's CSR registration driver: the shared CSR flow (./csr-flow.ts) for the agent's own
// hub client certificate, with subject `system:open-cluster-management:<cluster>:<agent>`, CSRs
// named `<cluster>-…` and labelled with the cluster, and the creation halt counted over the
// cluster's CSRs. The same instance serves the bootstrap and main phases; the phase's hub access is
// swapped with setHub().

import { agentUserName, clusterGroupName, labels, names } from '../../../api/constants.js';
import type { CertificateSigningRequest } from '../../../api/core.js';
import type { KubeClient, ResourceClient } from '../../../client/types.js';
import type { Clock } from '../../../util/clock.js';
import type { Logger } from '../../../util/logger.js';
import type { RegisterDriver } from '../driver.js';
import { csrCreationHalted, type ExpectedSubject } from './cert-checks.js';
import { createCsrFlow, type CsrHubAccess } from './csr-flow.js';
import { hubCsrClient } from './csr-api-version.js';

export interface CsrDriverOptions {
  clusterName: string;
  agentName: string;
  /** `--client-cert-expiration-seconds`; 0 = omit. */
  expirationSeconds: number;
  log: Logger;
  clock: Clock;
  /** Uniform [0,1) source for the rotation threshold. */
  random: () => number;
  /** Gate V1beta1CSRAPICompatibility: use certificates.k8s.io/v1beta1 on a hub without v1. */
  v1beta1Compatibility?: boolean;
  /** The signer asked for (default kubernetes.io/kube-apiserver-client; the gRPC driver asks its own). */
  signerName?: string;
}

export interface CsrDriver extends RegisterDriver {
  setHub(access: CsrHubAccess | undefined): void;
  /** The CSR client of a hub connection, in the API version this driver uses there. */
  csrClient(client: KubeClient): ResourceClient<CertificateSigningRequest>;
  /** Name of the CSR being waited on ('' when none). */
  pendingCsrName(): string;
  readonly subject: ExpectedSubject;
}

export function createCsrDriver(o: CsrDriverOptions): CsrDriver {
  const subject: ExpectedSubject = Object.freeze({
    commonName: agentUserName(o.clusterName, o.agentName),
    organizations: [clusterGroupName(o.clusterName), names.managedClustersGroup],
  });
  let hub: CsrHubAccess | undefined;
  const flow = createCsrFlow({
    request: { subject, signerName: o.signerName ?? names.kubeApiserverClientSigner, generateName: `${o.clusterName}-`, labels: { [labels.clusterName]: o.clusterName } },
    hub: () => hub,
    creationHalted: (cached) => csrCreationHalted(cached, o.clusterName),
    expirationSeconds: o.expirationSeconds,
    clock: o.clock,
    random: o.random,
    event: (reason, message) => o.log.info(message, { reason }),
  });
  return {
    subject,
    setHub(access) {
      hub = access;
    },
    csrClient: (client) => hubCsrClient(client, o.v1beta1Compatibility === true),
    pendingCsrName: flow.pendingCsrName,
    awaitingCredential: flow.awaitingCredential,
    process: flow.process,
  };
}
