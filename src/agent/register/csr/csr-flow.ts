// The CSR flow shared by the cluster's registration driver and each add-on's (OCM runs one CSR
// driver with per-use options): keep a valid certificate; otherwise create an ECDSA P-256 key and a
// CertificateSigningRequest on the hub, wait until it is approved and issued, and hand certificate
// and key to the secret controller. The pending CSR name and its key live in memory only, so a
// restart starts over with a new CSR rather than trusting a stored half-state.

import { conditionTypes, hubSecretKeys, reasons } from '../../../api/constants.js';
import type { CertificateSigningRequest, Secret } from '../../../api/core.js';
import type { Condition } from '../../../api/meta.js';
import { isNotFound } from '../../../client/errors.js';
import type { Lister, ResourceClient } from '../../../client/types.js';
import type { Clock } from '../../../util/clock.js';
import { errorMessage, toError } from '../../../util/errors.js';
import { keyMatchesCertificate } from '../../../util/native-cert.js';
import type { ProcessOutcome, RegisterDriver } from '../driver.js';
import { certValidityPeriod, formatRemaining, goTimeString, isCertificateValid, isCsrApproved, rotationDue, type ExpectedSubject } from './cert-checks.js';
import { createEcCsr, generateEcPrivateKey, type EcPrivateKey } from './native-csr.js';

const CSR_USAGES: readonly string[] = ['digital signature', 'key encipherment', 'client auth'];

/** What the CSRs of one use look like. */
interface CsrRequest {
  /** The subject requested, and the one a stored certificate must carry to be kept. */
  subject: ExpectedSubject;
  signerName: string;
  /** `metadata.generateName` of the CSRs created. */
  generateName: string;
  labels: Readonly<Record<string, string>>;
  dnsNames?: readonly string[];
}

/** What the flow needs from a hub connection. */
export interface CsrHubAccess {
  csrs: Pick<ResourceClient<CertificateSigningRequest>, 'get' | 'create'>;
  /** Cache of the CSRs of this use (label-selected informer). */
  lister: Lister<CertificateSigningRequest>;
}

export interface CsrFlowOptions {
  request: CsrRequest;
  /** The hub connection of the moment; undefined while there is none. */
  hub(): CsrHubAccess | undefined;
  /** True when the cached CSRs are too many to create another. */
  creationHalted(cached: readonly CertificateSigningRequest[]): boolean;
  /** `--client-cert-expiration-seconds`; 0 = omit. */
  expirationSeconds: number;
  clock: Clock;
  /** Uniform [0,1) source for the rotation threshold. */
  random: () => number;
  /** Reports a step with OCM's event reason. */
  event(reason: string, message: string): void;
}

export interface CsrFlow extends RegisterDriver {
  /** Name of the CSR being waited on ('' when none). */
  pendingCsrName(): string;
}

function rotated(status: 'True' | 'False', reason: string, message: string): Condition {
  return { type: conditionTypes.certificateRotated, status, reason, message };
}

const failed = (message: string): Condition => rotated('False', reasons.clientCertificateUpdateFailed, message);

function decode(b64: string | undefined): Buffer | undefined {
  return b64 === undefined ? undefined : Buffer.from(b64, 'base64');
}

export function createCsrFlow(o: CsrFlowOptions): CsrFlow {
  const { subject } = o.request;
  let pendingName = '';
  let pendingKey: EcPrivateKey | undefined;
  const reset = (): void => {
    pendingName = '';
    pendingKey = undefined;
  };

  const processPending = async (controllerName: string, secret: Secret, signal: AbortSignal): Promise<ProcessOutcome> => {
    const name = pendingName;
    try {
      const hub = o.hub();
      if (!hub) throw new Error('no hub connection');
      let csr = hub.lister.get(name);
      if (csr === undefined) {
        try {
          csr = await hub.csrs.get(name, { signal });
        } catch (err) {
          if (isNotFound(err)) throw new Error(`unable to get csr ${JSON.stringify(name)}. It might have already been deleted`);
          // Any other failure (a timeout, a busy or restarting hub) says nothing about the CSR: keep
          // waiting on it. Abandoning it for a new one on every timeout (as OCM's agent does) piles
          // CSRs onto the very hub that is too busy to answer.
          const error = toError(err);
          return { secret, condition: failed(`Failed to rotated client certificate ${error.message}`), error };
        }
      }
      const certB64 = csr.status?.certificate;
      if (!isCsrApproved(csr) || certB64 === undefined || certB64 === '') return {};
      const certPem = Buffer.from(certB64, 'base64').toString('utf8');
      if (pendingKey === undefined) throw new Error(`no private key found for certificate in csr: ${name}`);
      if (!keyMatchesCertificate(certPem, pendingKey.key)) throw new Error(`private key does not match with the certificate in csr: ${name}`);
      const data = { ...(secret.data ?? {}) };
      data[hubSecretKeys.tlsCert] = Buffer.from(certPem, 'utf8').toString('base64');
      data[hubSecretKeys.tlsKey] = Buffer.from(pendingKey.pem, 'utf8').toString('base64');
      let condition: Condition;
      try {
        const p = certValidityPeriod(certPem, `${secret.metadata.namespace}/${secret.metadata.name}`);
        condition = rotated('True', reasons.clientCertificateUpdated, `client certificate rotated starting from ${goTimeString(p.notBefore)} to ${goTimeString(p.notAfter)}`);
      } catch (err) {
        condition = failed(`Failed to rotated client certificate ${errorMessage(err)}`);
      }
      o.event('ClientCertificateCreated', `A new client certificate for ${controllerName} is available`);
      reset();
      return { secret: { ...secret, data }, condition };
    } catch (e) {
      const err = toError(e);
      reset();
      return { secret, condition: failed(`Failed to rotated client certificate ${err.message}`), error: err };
    }
  };

  /**
   * A new CSR is needed (`true`), or not yet: then the milliseconds until the certificate's
   * rotation time. Throws when the validity window cannot be computed.
   */
  const shouldCreateCsr = (controllerName: string, secret: Secret, additionalData: Readonly<Record<string, Buffer>>): true | number => {
    const now = new Date(o.clock.now());
    const certPem = decode(secret.data?.[hubSecretKeys.tlsCert])?.toString('utf8') ?? '';
    try {
      if (!isCertificateValid(certPem, subject, now)) {
        o.event('NoValidCertificateFound', `No valid client certificate for ${controllerName} is found. Bootstrap is required`);
        return true;
      }
    } catch (err) {
      o.event('CertificateValidationFailed', `Failed to validate client certificate for ${controllerName}: ${errorMessage(err)}`);
      return true;
    }
    const ref = `${secret.metadata.namespace}/${secret.metadata.name}`;
    for (const [k, v] of Object.entries(additionalData)) {
      const have = decode(secret.data?.[k]);
      let problem: string | undefined;
      if (have === undefined) problem = `key ${JSON.stringify(k)} not found in secret ${JSON.stringify(ref)}`;
      else if (!have.equals(v)) problem = `key ${JSON.stringify(k)} in secret ${JSON.stringify(ref)} does not match the expected value`;
      if (problem !== undefined) {
        o.event('AdditonalSecretDataChanged', `The additional secret data is changed for ${problem}. Re-create the client certificate for ${controllerName}`);
        return true;
      }
    }
    const due = rotationDue(certValidityPeriod(certPem, ref), now, o.random());
    if (!due.rotate) return due.dueInMs;
    o.event('CertificateRotationStarted', `The current client certificate for ${controllerName} expires in ${formatRemaining(due.remainingMs)}. Start certificate rotation`);
    return true;
  };

  const createNewCsr = async (controllerName: string, signal: AbortSignal): Promise<ProcessOutcome> => {
    const hub = o.hub();
    if (!hub) {
      const err = new Error('no hub connection');
      return { condition: failed(`Failed to create CSR ${err.message}`), error: err };
    }
    if (o.creationHalted(hub.lister.list())) {
      o.event('ClientCertificateCreationHalted', `Stop creating CSR for ${controllerName} since there are too many CSRs created already on the hub.`);
      return { condition: failed('Stop creating csr since there are too many csr created already on hub') };
    }
    try {
      const key = await generateEcPrivateKey();
      const r = o.request;
      const request = createEcCsr(key.key, {
        commonName: subject.commonName,
        organizations: subject.organizations,
        ...(subject.organizationalUnits ? { organizationalUnits: subject.organizationalUnits } : {}),
        ...(r.dnsNames ? { dnsNames: r.dnsNames } : {}),
      });
      const created = await hub.csrs.create(
        {
          apiVersion: 'certificates.k8s.io/v1',
          kind: 'CertificateSigningRequest',
          metadata: { generateName: r.generateName, labels: { ...r.labels } },
          spec: {
            request: Buffer.from(request, 'utf8').toString('base64'),
            signerName: r.signerName,
            usages: [...CSR_USAGES],
            ...(o.expirationSeconds !== 0 ? { expirationSeconds: o.expirationSeconds } : {}),
          },
        },
        { signal },
      );
      pendingName = created.metadata.name ?? '';
      pendingKey = key;
      o.event('CSRCreated', `A csr ${JSON.stringify(pendingName)} is created`);
      return {};
    } catch (e) {
      const err = toError(e);
      return { condition: failed(`Failed to create CSR ${err.message}`), error: err };
    }
  };

  return {
    pendingCsrName: () => pendingName,
    awaitingCredential: () => pendingName !== '',
    async process(controllerName, secret, additionalData, signal) {
      if (pendingName !== '') return processPending(controllerName, secret, signal);
      let create: true | number;
      try {
        create = shouldCreateCsr(controllerName, secret, additionalData);
      } catch (err) {
        return { error: toError(err) };
      }
      return create === true ? createNewCsr(controllerName, signal) : { recheckAfterMs: create };
    },
  };
}
