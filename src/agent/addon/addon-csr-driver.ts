// CSR driver for one addon registration (spoke-agent.md §15.6, the "fork" of §10): same flow as
// the cluster's CSR driver — reuse a valid certificate, otherwise create a CSR and wait for its
// approval and certificate — but with the registration's signer and subject, CSRs named
// `addon-<cluster>-<addon>-…` and labelled with cluster and addon, and the creation halt counted
// per cluster/addon. Built on agent-core's certificate checks (../register/csr/cert-checks.ts).

import { conditionTypes, hubSecretKeys, labels, names, reasons } from '../../api/constants.js';
import type { CertificateSigningRequest, Secret } from '../../api/core.js';
import type { Condition } from '../../api/meta.js';
import type { RegistrationConfig } from '../../api/addon.js';
import { isNotFound } from '../../client/errors.js';
import type { Lister, ResourceClient } from '../../client/types.js';
import type { Clock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import { keyMatchesCertificate } from '../../util/native-cert.js';
import { createEcCsr, generateEcPrivateKeyPem } from '../register/csr/native-csr.js';
import type { ProcessOutcome, RegisterDriver } from '../register/driver.js';
import { CSR_HALT_LIMIT, certValidityPeriod, formatRemaining, goTimeString, isCertificateValid, isCsrApproved, rotationDue, type ExpectedSubject } from '../register/csr/cert-checks.js';
import { defaultAddonUser } from './registration-config.js';
import { errorMessage, toError } from '../../util/errors.js';

const CSR_USAGES: readonly string[] = ['digital signature', 'key encipherment', 'client auth'];

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

function cond(status: 'True' | 'False', reason: string, message: string): Condition {
  return { type: conditionTypes.certificateRotated, status, reason, message };
}

function decode(b64: string | undefined): Buffer | undefined {
  return b64 === undefined ? undefined : Buffer.from(b64, 'base64');
}

export function createAddonCsrDriver(o: AddonCsrDriverOptions): RegisterDriver & { readonly signerName: string; readonly subject: ExpectedSubject } {
  const { signerName, subject } = addonCsrTarget(o.registration, o.clusterName, o.addonName);
  let pendingName = '';
  let pendingKey: string | undefined;
  const event = (reason: string, message: string): void => o.log.info(message, { reason, addon: o.addonName });
  const failed = (message: string): Condition => cond('False', reasons.clientCertificateUpdateFailed, message);

  const processPending = async (controllerName: string, secret: Secret, signal: AbortSignal): Promise<ProcessOutcome> => {
    const name = pendingName;
    try {
      let csr = o.csrLister.get(name);
      if (!csr) {
        try {
          csr = await o.csrs.get(name, { signal });
        } catch (err) {
          if (isNotFound(err)) throw new Error(`unable to get csr ${JSON.stringify(name)}. It might have already been deleted`);
          throw err;
        }
      }
      if (!isCsrApproved(csr) || !csr.status?.certificate) return {};
      const certPem = Buffer.from(csr.status.certificate, 'base64').toString('utf8');
      if (!pendingKey) throw new Error(`no private key found for certificate in csr: ${name}`);
      if (!keyMatchesCertificate(certPem, pendingKey)) throw new Error(`private key does not match with the certificate in csr: ${name}`);
      const data = { ...(secret.data ?? {}) };
      data[hubSecretKeys.tlsCert] = Buffer.from(certPem, 'utf8').toString('base64');
      data[hubSecretKeys.tlsKey] = Buffer.from(pendingKey, 'utf8').toString('base64');
      let condition: Condition;
      try {
        const p = certValidityPeriod(certPem, `${secret.metadata.namespace}/${secret.metadata.name}`);
        condition = cond('True', reasons.clientCertificateUpdated, `client certificate rotated starting from ${goTimeString(p.notBefore)} to ${goTimeString(p.notAfter)}`);
      } catch (err) {
        condition = failed(`Failed to rotated client certificate ${errorMessage(err)}`);
      }
      event('ClientCertificateCreated', `A new client certificate for ${controllerName} is available`);
      pendingName = '';
      pendingKey = undefined;
      return { secret: { ...secret, data }, condition };
    } catch (e) {
      pendingName = '';
      pendingKey = undefined;
      const err = toError(e);
      return { secret, condition: failed(`Failed to rotated client certificate ${err.message}`), error: err };
    }
  };

  const needsCsr = (controllerName: string, secret: Secret, additionalData: Readonly<Record<string, Buffer>>): boolean => {
    const now = new Date(o.clock.now());
    const certPem = decode(secret.data?.[hubSecretKeys.tlsCert])?.toString('utf8') ?? '';
    try {
      if (!isCertificateValid(certPem, subject, now)) {
        event('NoValidCertificateFound', `No valid client certificate for ${controllerName} is found. Bootstrap is required`);
        return true;
      }
    } catch (err) {
      event('CertificateValidationFailed', `Failed to validate client certificate for ${controllerName}: ${errorMessage(err)}`);
      return true;
    }
    for (const [k, v] of Object.entries(additionalData)) {
      const have = decode(secret.data?.[k]);
      if (!have || !have.equals(v)) {
        event('AdditonalSecretDataChanged', `The additional secret data is changed for key ${JSON.stringify(k)}. Re-create the client certificate for ${controllerName}`);
        return true;
      }
    }
    const due = rotationDue(certValidityPeriod(certPem, `${secret.metadata.namespace}/${secret.metadata.name}`), now, o.random());
    if (!due.rotate) return false;
    event('CertificateRotationStarted', `The current client certificate for ${controllerName} expires in ${formatRemaining(due.remainingMs)}. Start certificate rotation`);
    return true;
  };

  const createNewCsr = async (controllerName: string, signal: AbortSignal): Promise<ProcessOutcome> => {
    const mine = o.csrLister.list().filter((c) => c.metadata.labels?.[labels.clusterName] === o.clusterName && c.metadata.labels?.[labels.addonName] === o.addonName);
    if (mine.length >= CSR_HALT_LIMIT) {
      event('ClientCertificateCreationHalted', `Stop creating CSR for ${controllerName} since there are too many CSRs created already on the hub.`);
      return { condition: failed('Stop creating csr since there are too many csr created already on hub') };
    }
    try {
      const key = await generateEcPrivateKeyPem();
      const request = createEcCsr(key, {
        commonName: subject.commonName,
        ...(subject.organizations.length ? { organizations: subject.organizations } : {}),
        ...(subject.organizationalUnits?.length ? { organizationalUnits: subject.organizationalUnits } : {}),
        dnsNames: [`${o.addonName}.addon.open-cluster-management.io`],
      });
      const created = await o.csrs.create(
        {
          apiVersion: 'certificates.k8s.io/v1',
          kind: 'CertificateSigningRequest',
          metadata: { generateName: `addon-${o.clusterName}-${o.addonName}-`, labels: { [labels.clusterName]: o.clusterName, [labels.addonName]: o.addonName } },
          spec: {
            request: Buffer.from(request, 'utf8').toString('base64'),
            signerName,
            usages: [...CSR_USAGES],
            ...(o.expirationSeconds !== 0 ? { expirationSeconds: o.expirationSeconds } : {}),
          },
        },
        { signal },
      );
      pendingName = created.metadata.name ?? '';
      pendingKey = key;
      event('CSRCreated', `A csr ${JSON.stringify(pendingName)} is created`);
      return {};
    } catch (e) {
      const err = toError(e);
      return { condition: failed(`Failed to create CSR ${err.message}`), error: err };
    }
  };

  return {
    signerName,
    subject,
    async process(controllerName, secret, additionalData, signal) {
      if (pendingName !== '') return processPending(controllerName, secret, signal);
      let create: boolean;
      try {
        create = needsCsr(controllerName, secret, additionalData);
      } catch (err) {
        return { error: toError(err) };
      }
      return create ? createNewCsr(controllerName, signal) : {};
    },
  };
}
