// CSR driver for one add-on registration: the shared CSR flow (../register/csr/csr-flow.ts) with the
// registration's signer and subject, CSRs named `addon-<cluster>-<addon>-…` and labelled with
// cluster and add-on, a DNS name for the add-on, and the creation halt counted per cluster and add-on.

import { labels, names } from '../../api/constants.js';
import type { CertificateSigningRequest } from '../../api/core.js';
import type { RegistrationConfig } from '../../api/addon.js';
import type { Lister, ResourceClient } from '../../client/types.js';
import type { Clock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import type { RegisterDriver } from '../register/driver.js';
import { CSR_HALT_LIMIT, type ExpectedSubject } from '../register/csr/cert-checks.js';
import { createCsrFlow, type CsrHubAccess } from '../register/csr/csr-flow.js';
import { defaultAddonUser } from './registration-config.js';

export interface AddonCsrDriverOptions {
  clusterName: string;
  addonName: string;
  /** The defaulted registration (registration-config.ts). */
  registration: RegistrationConfig;
  /** Hub CSRs client and the cache of this addon's CSRs (label-selected informer). */
  csrs: Pick<ResourceClient<CertificateSigningRequest>, 'get' | 'create'>;
  csrLister: Lister<CertificateSigningRequest>;
  /** `--client-cert-expiration-seconds`; 0 = omit. */
  expirationSeconds: number;
  log: Logger;
  clock: Clock;
  random: () => number;
}

/** Signer and expected certificate subject of a registration (pure). */
export function addonCsrTarget(reg: RegistrationConfig, clusterName: string, addonName: string): { signerName: string; subject: ExpectedSubject } {
  if (reg.type === 'customSigner' && reg.customSigner) {
    const s = reg.customSigner.subject ?? {};
    return {
      signerName: reg.customSigner.signerName,
      subject: { commonName: s.user || defaultAddonUser(clusterName, addonName), organizations: [...(s.groups ?? [])], organizationalUnits: [...(s.organizationUnits ?? [])] },
    };
  }
  const s = reg.kubeClient?.subject ?? {};
  return {
    signerName: names.kubeApiserverClientSigner,
    subject: { commonName: s.user || defaultAddonUser(clusterName, addonName), organizations: [...(s.groups ?? [])] },
  };
}

/** CSR event filter: this cluster's and addon's CSRs for the expected signer (pure). */
export function isAddonCsr(csr: CertificateSigningRequest, clusterName: string, addonName: string, signerName: string): boolean {
  const l = csr.metadata.labels ?? {};
  return l[labels.clusterName] === clusterName && l[labels.addonName] === addonName && !!csr.spec?.signerName && csr.spec.signerName === signerName;
}

export function createAddonCsrDriver(o: AddonCsrDriverOptions): RegisterDriver & { readonly signerName: string; readonly subject: ExpectedSubject } {
  const { signerName, subject } = addonCsrTarget(o.registration, o.clusterName, o.addonName);
  const hub: CsrHubAccess = { csrs: o.csrs, lister: o.csrLister };
  const flow = createCsrFlow({
    request: {
      subject,
      signerName,
      generateName: `addon-${o.clusterName}-${o.addonName}-`,
      labels: { [labels.clusterName]: o.clusterName, [labels.addonName]: o.addonName },
      dnsNames: [`${o.addonName}.addon.open-cluster-management.io`],
    },
    hub: () => hub,
    creationHalted: (cached) => cached.filter((c) => c.metadata.labels?.[labels.clusterName] === o.clusterName && c.metadata.labels?.[labels.addonName] === o.addonName).length >= CSR_HALT_LIMIT,
    expirationSeconds: o.expirationSeconds,
    clock: o.clock,
    random: o.random,
    event: (reason, message) => o.log.info(message, { reason, addon: o.addonName }),
  });
  return { signerName, subject, process: flow.process, awaitingCredential: flow.awaitingCredential };
}
