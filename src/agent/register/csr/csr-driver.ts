// CSR registration driver (spoke-agent.md §10): decides whether a new client certificate is needed
// (invalid/expiring certificate, changed additional data), creates an ECDSA P-256 key and a CSR on the
// hub, waits for approval and issuance, and hands the certificate + key back to the register secret
// controller. The pending CSR name and key live in memory only (§10.2). The same instance serves the
// bootstrap and main phases; the phase's hub access is swapped with setHub().

import { conditionTypes, hubSecretKeys, labels, names, reasons } from '../../../api/constants.js';
import type { CertificateSigningRequest, Secret } from '../../../api/core.js';
import type { Condition } from '../../../api/meta.js';
import { isNotFound } from '../../../client/errors.js';
import type { Lister, ResourceClient } from '../../../client/types.js';
import type { Clock } from '../../../util/clock.js';
import type { Logger } from '../../../util/logger.js';
import { keyMatchesCertificate } from '../../../util/native-cert.js';
import { createEcCsr, generateEcPrivateKeyPem } from './native-csr.js';
import type { ProcessOutcome, RegisterDriver } from '../driver.js';
import {
  CertParseError,
  certValidityPeriod,
  csrCreationHalted,
  formatRemaining,
  goTimeString,
  isCertificateValid,
  isCsrApproved,
  rotationDue,
  type ExpectedSubject,
} from './cert-checks.js';
import { errorMessage, toError } from '../../../util/errors.js';

export const CSR_USAGES: readonly string[] = ['digital signature', 'key encipherment', 'client auth'];

export interface CsrDriverOptions {
  clusterName: string;
  agentName: string;
  /** `--client-cert-expiration-seconds`; 0 = omit. */
  expirationSeconds: number;
  log: Logger;
  clock: Clock;
  /** Uniform [0,1) source for the rotation threshold. */
  random: () => number;
}

/** What the driver needs from the phase's hub connection. */
export interface CsrHubAccess {
  csrs: ResourceClient<CertificateSigningRequest>;
  /** Cache of the cluster's CSRs (label-selected informer). */
  lister: Lister<CertificateSigningRequest>;
}

export interface CsrDriver extends RegisterDriver {
  setHub(access: CsrHubAccess | undefined): void;
  /** Name of the CSR being waited on ('' when none). */
  pendingCsrName(): string;
  readonly subject: ExpectedSubject;
}

function cond(status: 'True' | 'False', reason: string, message: string): Condition {
  return { type: conditionTypes.certificateRotated, status, reason, message };
}

function decode(b64: string | undefined): Buffer | undefined {
  return b64 === undefined ? undefined : Buffer.from(b64, 'base64');
}

export function createCsrDriver(o: CsrDriverOptions): CsrDriver {
  const subject: ExpectedSubject = Object.freeze({
    commonName: `${names.userPrefix}${o.clusterName}:${o.agentName}`,
    organizations: [`${names.userPrefix}${o.clusterName}`, names.managedClustersGroup],
  });
  let hub: CsrHubAccess | undefined;
  let pendingName = '';
  let pendingKey: string | undefined;
  const reset = (): void => {
    pendingName = '';
    pendingKey = undefined;
  };
  const event = (reason: string, message: string): void => o.log.info(message, { reason });

  const processPending = async (controllerName: string, secret: Secret, signal: AbortSignal): Promise<ProcessOutcome> => {
    const name = pendingName;
    try {
      if (!hub) throw new Error('no hub connection');
      let csr = hub.lister.get(name);
      if (csr === undefined) {
        try {
          csr = await hub.csrs.get(name, { signal });
        } catch (err) {
          if (isNotFound(err)) throw new Error(`unable to get csr ${JSON.stringify(name)}. It might have already been deleted`);
          throw new Error(errorMessage(err), { cause: err });
        }
      }
      if (!isCsrApproved(csr)) return {};
      const certB64 = csr.status?.certificate;
      if (certB64 === undefined || certB64 === '') return {};
      const certPem = Buffer.from(certB64, 'base64').toString('utf8');
      if (pendingKey === undefined) throw new Error(`no private key found for certificate in csr: ${name}`);
      if (!keyMatchesCertificate(certPem, pendingKey)) throw new Error(`private key does not match with the certificate in csr: ${name}`);
      const data = { ...(secret.data ?? {}) };
      data[hubSecretKeys.tlsCert] = Buffer.from(certPem, 'utf8').toString('base64');
      data[hubSecretKeys.tlsKey] = Buffer.from(pendingKey, 'utf8').toString('base64');
      let condition: Condition;
      try {
        const p = certValidityPeriod(certPem, `${secret.metadata.namespace}/${secret.metadata.name}`);
        condition = cond('True', reasons.clientCertificateUpdated, `client certificate rotated starting from ${goTimeString(p.notBefore)} to ${goTimeString(p.notAfter)}`);
      } catch (err) {
        condition = cond('False', reasons.clientCertificateUpdateFailed, `Failed to rotated client certificate ${errorMessage(err)}`);
      }
      event('ClientCertificateCreated', `A new client certificate for ${controllerName} is available`);
      reset();
      return { secret: { ...secret, data }, condition };
    } catch (e) {
      const err = e as Error;
      reset();
      return { secret, condition: cond('False', reasons.clientCertificateUpdateFailed, `Failed to rotated client certificate ${err.message}`), error: err };
    }
  };

  /** §10.3 B: true when a new CSR is needed; throws when the validity window cannot be computed. */
  const shouldCreateCsr = (controllerName: string, secret: Secret, additionalData: Readonly<Record<string, Buffer>>): boolean => {
    const now = new Date(o.clock.now());
    const certPem = decode(secret.data?.[hubSecretKeys.tlsCert])?.toString('utf8') ?? '';
    try {
      if (!isCertificateValid(certPem, subject, now)) {
        event('NoValidCertificateFound', `No valid client certificate for ${controllerName} is found. Bootstrap is required`);
        return true;
      }
    } catch (err) {
      const msg = err instanceof CertParseError ? err.message : errorMessage(err);
      event('CertificateValidationFailed', `Failed to validate client certificate for ${controllerName}: ${msg}`);
      return true;
    }
    const ref = `${secret.metadata.namespace}/${secret.metadata.name}`;
    for (const [k, v] of Object.entries(additionalData)) {
      const have = decode(secret.data?.[k]);
      let problem: string | undefined;
      if (have === undefined) problem = `key ${JSON.stringify(k)} not found in secret ${JSON.stringify(ref)}`;
      else if (!have.equals(v)) problem = `key ${JSON.stringify(k)} in secret ${JSON.stringify(ref)} does not match the expected value`;
      if (problem !== undefined) {
        event('AdditonalSecretDataChanged', `The additional secret data is changed for ${problem}. Re-create the client certificate for ${controllerName}`);
        return true;
      }
    }
    const period = certValidityPeriod(certPem, ref);
    const due = rotationDue(period, now, o.random());
    if (!due.rotate) return false;
    event('CertificateRotationStarted', `The current client certificate for ${controllerName} expires in ${formatRemaining(due.remainingMs)}. Start certificate rotation`);
    return true;
  };

  const createNewCsr = async (controllerName: string, signal: AbortSignal): Promise<ProcessOutcome> => {
    if (!hub) {
      const err = new Error('no hub connection');
      return { condition: cond('False', reasons.clientCertificateUpdateFailed, `Failed to create CSR ${err.message}`), error: err };
    }
    if (csrCreationHalted(hub.lister.list(), o.clusterName)) {
      event('ClientCertificateCreationHalted', `Stop creating CSR for ${controllerName} since there are too many CSRs created already on the hub.`);
      return { condition: cond('False', reasons.clientCertificateUpdateFailed, 'Stop creating csr since there are too many csr created already on hub') };
    }
    try {
      const key = await generateEcPrivateKeyPem();
      const request = createEcCsr(key, { commonName: subject.commonName, organizations: subject.organizations });
      const csr: CertificateSigningRequest = {
        apiVersion: 'certificates.k8s.io/v1',
        kind: 'CertificateSigningRequest',
        metadata: { generateName: `${o.clusterName}-`, labels: { [labels.clusterName]: o.clusterName } },
        spec: {
          request: Buffer.from(request, 'utf8').toString('base64'),
          signerName: names.kubeApiserverClientSigner,
          usages: [...CSR_USAGES],
          ...(o.expirationSeconds !== 0 ? { expirationSeconds: o.expirationSeconds } : {}),
        },
      };
      const created = await hub.csrs.create(csr, { signal });
      const name = created.metadata.name ?? '';
      event('CSRCreated', `A csr ${JSON.stringify(name)} is created`);
      pendingName = name;
      pendingKey = key;
      return {};
    } catch (e) {
      const err = new Error(errorMessage(e), { cause: e });
      return { condition: cond('False', reasons.clientCertificateUpdateFailed, `Failed to create CSR ${err.message}`), error: err };
    }
  };

  return {
    subject,
    setHub(access) {
      hub = access;
    },
    pendingCsrName: () => pendingName,
    async process(controllerName, secret, additionalData, signal) {
      if (pendingName !== '') return processPending(controllerName, secret, signal);
      let create: boolean;
      try {
        create = shouldCreateCsr(controllerName, secret, additionalData);
      } catch (err) {
        return { error: toError(err) };
      }
      if (!create) return {};
      return createNewCsr(controllerName, signal);
    },
  };
}
