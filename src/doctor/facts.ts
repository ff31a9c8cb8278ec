// What `ocm-ts doctor` learns about a cluster's registration, as plain data: gathered once by
// ./gather.ts (all the I/O), then judged by the pure checks of ./checks.ts.
import type { ManagedCluster } from '../api/cluster.js';
import type { CertificateSigningRequest, Lease } from '../api/core.js';

/** One HTTPS GET with a kubeconfig's CA and credentials. */
export interface HttpsProbe {
  /** HTTP status when the server answered (the TLS handshake verified its certificate). */
  status?: number;
  /** Why there was no answer: the TLS verification error code (e.g. SELF_SIGNED_CERT_IN_CHAIN) or a network error. */
  error?: string;
  /** True when the failure is the server certificate not verifying against the kubeconfig's CA. */
  tlsVerifyFailed?: boolean;
  /** The server's clock (Date header), in ms. */
  serverTimeMs?: number;
}

export interface CertFacts {
  commonName: string;
  notBeforeMs: number;
  notAfterMs: number;
}

export interface BootstrapFacts {
  /** Where the bootstrap kubeconfig came from (a file, or the spoke's secret). */
  source: string;
  server: string;
  /** GET of the cluster's ManagedCluster with the bootstrap credentials. */
  probe: HttpsProbe;
  /** `<id>` of a bootstrap token (`<id>.<secret>`); undefined for other credentials. */
  tokenId?: string;
  /** The hub's `kube-system/bootstrap-token-<id>` secret, when the token is one. */
  tokenSecret?: { found: boolean; expiresAtMs?: number };
}

export interface HubSecretFacts {
  present: boolean;
  clusterName?: string;
  agentName?: string;
  cert?: CertFacts;
  /** Why the secret's kubeconfig or certificate could not be read. */
  unreadable?: string;
  server?: string;
  /** GET of the cluster's ManagedCluster with the secret's kubeconfig. */
  probe?: HttpsProbe;
}

export interface SpokeFacts {
  server: string;
  /** GET /version on the spoke with its kubeconfig. */
  probe: HttpsProbe;
  bootstrapSecretPresent?: boolean;
  hubSecret?: HubSecretFacts;
}

export interface DoctorFacts {
  cluster: string;
  nowMs: number;
  hub: { server: string; probe: HttpsProbe; version?: string };
  bootstrap?: BootstrapFacts;
  /** Undefined when the hub could not be read; null when it has no such cluster. */
  managedCluster?: ManagedCluster | null;
  /** The cluster's own CSRs (not its add-ons'), any order. */
  csrs: CertificateSigningRequest[];
  /** The certificate of the newest signed CSR among `csrs`. */
  issuedCert?: CertFacts & { csr: string };
  /** Undefined when not read; null when absent. */
  lease?: Lease | null;
  spoke?: SpokeFacts;
  agentHealth?: { url: string; probe: HttpsProbe; body?: string };
}

/** How the user invoked doctor: the fix commands name these. */
export interface DoctorContext {
  cluster: string;
  hubKubeconfig: string;
  spokeKubeconfig?: string;
}
