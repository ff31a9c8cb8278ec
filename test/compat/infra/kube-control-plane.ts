// A real Kubernetes control plane on loopback: kube-apiserver (RBAC, bootstrap tokens, x509 client
// certificates) and kube-controller-manager (the real csrsigning controller with our signing CA, the
// garbage collector, namespace deletion, bootstrap token cleanup), on the shared etcd. Our own PKI:
// one CA serves as serving CA, client CA and cluster-signing CA, so certificates the signer issues
// authenticate at once, exactly as on a kubeadm cluster.
import { createPublicKey } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensurePki } from '../../../src/apiserver/pki/index.js';
import { renderKubeconfig } from '../../../src/client/kubeconfig-writer.js';
import { createKubeClient } from '../../../src/client/rest-client.js';
import type { KubeClient } from '../../../src/client/types.js';
import { startChild, type Child } from './child-process.js';
import type { Etcd } from './etcd.js';
import { freePort } from './ports.js';
import { FatalWaitError, waitUntil } from './wait-until.js';

export interface KubeBinaries {
  kubeApiserver: string;
  kubeControllerManager: string;
}

export interface KubeControlPlaneOptions {
  /** Names the folder, the etcd prefix and the logs. */
  name: string;
  runDir: string;
  etcd: Etcd;
  binaries: KubeBinaries;
  /** kube-controller-manager's --cluster-signing-duration (Go duration). Default 8760h. */
  clusterSigningDuration?: string;
}

export interface KubeControlPlane {
  name: string;
  url: string;
  dir: string;
  caPath: string;
  caPem: string;
  /** system:masters kubeconfig (client certificate files). */
  adminKubeconfigPath: string;
  admin: KubeClient;
  apiserver: Child;
  controllerManager: Child;
  stop(): Promise<void>;
}

async function readyz(admin: KubeClient): Promise<boolean> {
  const res = await admin.probe('/readyz', { timeoutMs: 5000 });
  return res.statusCode === 200;
}

export async function startKubeControlPlane(opts: KubeControlPlaneOptions): Promise<KubeControlPlane> {
  const dir = join(opts.runDir, opts.name);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const pkiDir = join(dir, 'pki');
  const pki = await ensurePki(pkiDir, { extraSans: ['kubernetes', 'kubernetes.default', 'kubernetes.default.svc', '10.0.0.1'], caCommonName: `compat-${opts.name}-ca` });
  const admin = await pki.issueClientCertificate({ commonName: 'compat-admin', organizations: ['system:masters'] });
  writeFileSync(join(pkiDir, 'admin.crt'), admin.certPem, { mode: 0o600 });
  writeFileSync(join(pkiDir, 'admin.key'), admin.keyPem, { mode: 0o600 });

  // kube-apiserver reads verification keys as public keys only: a PKCS#8 private key file is refused.
  const saPub = createPublicKey(readFileSync(join(pkiDir, 'sa.key'), 'utf8')).export({ type: 'spki', format: 'pem' }).toString();
  writeFileSync(join(pkiDir, 'sa.pub'), saPub, { mode: 0o600 });

  const port = await freePort();
  const url = `https://127.0.0.1:${port}`;
  const adminKubeconfigPath = join(dir, 'admin.kubeconfig');
  writeFileSync(
    adminKubeconfigPath,
    renderKubeconfig({
      clusterName: opts.name,
      server: url,
      certificateAuthority: join(pkiDir, 'ca.crt'),
      user: { clientCertificate: join(pkiDir, 'admin.crt'), clientKey: join(pkiDir, 'admin.key') },
      namespace: 'default',
    }),
    { mode: 0o600 },
  );

  const apiserver = startChild({
    name: `${opts.name}-kube-apiserver`,
    command: opts.binaries.kubeApiserver,
    args: [
      `--etcd-servers=${opts.etcd.url}`,
      `--etcd-prefix=/compat-${opts.name}`,
      '--bind-address=127.0.0.1',
      '--advertise-address=127.0.0.1',
      `--secure-port=${port}`,
      `--cert-dir=${join(dir, 'apiserver-certs')}`,
      `--tls-cert-file=${join(pkiDir, 'apiserver.crt')}`,
      `--tls-private-key-file=${join(pkiDir, 'apiserver.key')}`,
      `--client-ca-file=${join(pkiDir, 'ca.crt')}`,
      '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
      `--service-account-key-file=${join(pkiDir, 'sa.pub')}`,
      `--service-account-signing-key-file=${join(pkiDir, 'sa.key')}`,
      '--service-cluster-ip-range=10.0.0.0/24',
      '--authorization-mode=RBAC',
      '--enable-bootstrap-token-auth',
      '--endpoint-reconciler-type=none',
      '--profiling=false',
      '--v=1',
    ],
    logPath: join(dir, 'kube-apiserver.log'),
  });
  const client = createKubeClient({ kubeconfigPath: adminKubeconfigPath });
  await waitUntil(`kube-apiserver ${opts.name} /readyz`, 120_000, async () => {
    if (apiserver.exited()) throw new FatalWaitError(`kube-apiserver ${opts.name} exited; see ${apiserver.logPath}`);
    return readyz(client);
  }, 250);

  const kcmPort = await freePort();
  const controllerManager = startChild({
    name: `${opts.name}-kube-controller-manager`,
    command: opts.binaries.kubeControllerManager,
    args: [
      `--kubeconfig=${adminKubeconfigPath}`,
      `--authentication-kubeconfig=${adminKubeconfigPath}`,
      `--authorization-kubeconfig=${adminKubeconfigPath}`,
      '--bind-address=127.0.0.1',
      `--secure-port=${kcmPort}`,
      `--cert-dir=${join(dir, 'kcm-certs')}`,
      `--cluster-signing-cert-file=${join(pkiDir, 'ca.crt')}`,
      `--cluster-signing-key-file=${join(pkiDir, 'ca.key')}`,
      `--cluster-signing-duration=${opts.clusterSigningDuration ?? '8760h'}`,
      `--service-account-private-key-file=${join(pkiDir, 'sa.key')}`,
      `--root-ca-file=${join(pkiDir, 'ca.crt')}`,
      '--controllers=*,bootstrapsigner,tokencleaner',
      '--leader-elect=false',
      '--use-service-account-credentials=false',
      '--profiling=false',
      '--v=1',
    ],
    logPath: join(dir, 'kube-controller-manager.log'),
  });
  return {
    name: opts.name,
    url,
    dir,
    caPath: join(pkiDir, 'ca.crt'),
    caPem: pki.caPem,
    adminKubeconfigPath,
    admin: client,
    apiserver,
    controllerManager,
    async stop() {
      client.close();
      await controllerManager.stop();
      await apiserver.stop();
    },
  };
}
