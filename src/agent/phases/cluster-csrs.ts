// The hub CSR informer behind the cluster's register secret controller (BootstrapController while
// bootstrapping, RegisterController afterwards): it lists only the cluster's CSRs, and a change to
// one of the cluster's own CSRs wakes the controller to look for its certificate.

import { labels } from '../../api/constants.js';
import type { CertificateSigningRequest } from '../../api/core.js';
import { onEveryChange } from '../../client/event-handlers.js';
import { createInformer } from '../../client/informer.js';
import type { Informer, KubeClient } from '../../client/types.js';
import type { Clock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import { isClusterCsr } from '../register/csr/cert-checks.js';
import type { CsrDriver } from '../register/csr/csr-driver.js';

export interface ClusterCsrsInput {
  /** The hub, through the bootstrap or the hub kubeconfig. */
  hubClient: KubeClient;
  clusterName: string;
  driver: CsrDriver;
  resyncMs: number;
  log: Logger;
  clock: Clock;
}

/** Creates the informer and points the driver at it; `watchClusterCsrs` connects it to the controller. */
export function clusterCsrInformer(i: ClusterCsrsInput): Informer<CertificateSigningRequest> {
  const csrs = i.driver.csrClient(i.hubClient);
  const informer = createInformer<CertificateSigningRequest>(csrs, {
    labelSelector: `${labels.clusterName}=${i.clusterName}`,
    resyncMs: i.resyncMs,
    log: i.log,
    clock: i.clock,
  });
  i.driver.setHub({ csrs, lister: informer.lister });
  return informer;
}

export function watchClusterCsrs(informer: Informer<CertificateSigningRequest>, clusterName: string, enqueue: () => void): void {
  onEveryChange(informer, (csr) => {
    if (isClusterCsr(csr, clusterName)) enqueue();
  });
}
