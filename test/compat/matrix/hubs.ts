// The four hubs of the matrix, each behind the same face: an admin client, two bootstrap tokens (one
// whose clusters the hub auto-approves, one that needs a manual accept) and the CA agents trust.
//   ocm-ts          `ocm-ts hub --data-dir`: our hub on our embedded API server
//   ocm-ts@kube     `ocm-ts hub --kubeconfig` on a real kube-apiserver
//   OCM@kube        OCM's `registration controller` + `registration webhook` on a real kube-apiserver
//   OCM@ocm-ts      OCM's `registration controller` on our embedded API server (`ocm-ts apiserver`)
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createKubeClient } from '../../../src/client/rest-client.js';
import type { KubeClient } from '../../../src/client/types.js';
import { startChild, type Child } from '../infra/child-process.js';
import { freePort } from '../infra/ports.js';
import type { Etcd } from '../infra/etcd.js';
import { startKubeControlPlane, type KubeBinaries, type KubeControlPlane } from '../infra/kube-control-plane.js';
import { createBootstrapToken, installHubBasics, writeTokenKubeconfig, type BootstrapToken } from './cluster-setup.js';
import { ocmTsCommand } from './ocm-ts-cli.js';
import { registerAdmissionWebhooks, startOcmWebhook, waitWebhookServing, webhookServing } from './ocm-webhook.js';

export type HubKind = 'ocm-ts' | 'ocm-ts@kube' | 'OCM@kube' | 'OCM@ocm-ts';
export const HUB_KINDS: readonly HubKind[] = ['ocm-ts', 'ocm-ts@kube', 'OCM@kube', 'OCM@ocm-ts'];

export interface Hub {
  kind: HubKind;
  dir: string;
  url: string;
  caPem: string;
  admin: KubeClient;
  adminKubeconfigPath: string;
  /** Clusters joining with this token wait for the admin's accept. */
  manualToken: BootstrapToken;
  /** The hub auto-approves clusters joining with this token (ManagedClusterAutoApproval). */
  autoToken: BootstrapToken;
  /** Writes (once) and returns a bootstrap kubeconfig for the token. */
  bootstrapKubeconfig(token: BootstrapToken): string;
  /** Certificate lifetime of the hub's signer, seconds. */
  signingSeconds: number;
  stop(): Promise<void>;
}

export interface HubContext {
  runDir: string;
  etcd: Etcd;
  kube: KubeBinaries;
  ocmRegistration: string;
  /** Lifetime of issued certificates, seconds (short, so the matrix sees rotations). */
  signingSeconds: number;
}

const MANUAL_TOKEN = { id: 'manual', secret: '0123456789abcdef' };
const AUTO_TOKEN = { id: 'autoap', secret: 'fedcba9876543210' };
const autoUsers = `system:bootstrap:${AUTO_TOKEN.id}`;

async function finishHub(kind: HubKind, dir: string, url: string, caPem: string, adminKubeconfigPath: string, signingSeconds: number, stops: Array<() => Promise<void>>): Promise<Hub> {
  const admin = createKubeClient({ kubeconfigPath: adminKubeconfigPath });
  const manualToken = await createBootstrapToken(admin, MANUAL_TOKEN.id, MANUAL_TOKEN.secret);
  const autoToken = await createBootstrapToken(admin, AUTO_TOKEN.id, AUTO_TOKEN.secret);
  return {
    kind,
    dir,
    url,
    caPem,
    admin,
    adminKubeconfigPath,
    manualToken,
    autoToken,
    signingSeconds,
    bootstrapKubeconfig(token) {
      const path = join(dir, `bootstrap-${token.id}.kubeconfig`);
      writeTokenKubeconfig(path, url, caPem, `${token.id}.${token.secret}`);
      return path;
    },
    async stop() {
      admin.close();
      for (const s of stops.reverse()) await s();
    },
  };
}

async function startOcmController(ctx: HubContext, dir: string, kubeconfig: string): Promise<Child> {
  const listen = `127.0.0.1:${await freePort()}`;
  return startChild({
    name: 'ocm-registration-controller',
    command: ctx.ocmRegistration,
    args: [
      'controller',
      `--kubeconfig=${kubeconfig}`,
      '--disable-leader-election',
      '--namespace=open-cluster-management-hub',
      // Its health server defaults to 0.0.0.0:8443, which would collide with the other hub's.
      `--listen=${listen}`,
      '--feature-gates=ManagedClusterAutoApproval=true',
      `--auto-approved-csr-users=${autoUsers}`,
    ],
    logPath: join(dir, 'ocm-registration-controller.log'),
  });
}

async function startRealHub(ctx: HubContext, kind: HubKind, name: string): Promise<{ cp: KubeControlPlane; dir: string }> {
  const cp = await startKubeControlPlane({ name, runDir: ctx.runDir, etcd: ctx.etcd, binaries: ctx.kube, clusterSigningDuration: `${ctx.signingSeconds}s` });
  await installHubBasics(cp.admin);
  void kind;
  return { cp, dir: cp.dir };
}

export async function startHub(kind: HubKind, ctx: HubContext): Promise<Hub> {
  const name = `hub-${kind.replace(/[^a-zA-Z]+/g, '-').toLowerCase()}`;
  if (kind === 'ocm-ts') {
    const dir = join(ctx.runDir, name);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const hub = startChild({
      name,
      ...ocmTsCommand([
        'hub',
        `--data-dir=${dir}`,
        '--listen=127.0.0.1:0',
        `--cluster-signing-duration=${ctx.signingSeconds}s`,
        '--feature-gates=ManagedClusterAutoApproval=true',
        `--auto-approved-csr-users=${autoUsers}`,
      ]),
      logPath: join(dir, 'ocm-ts-hub.log'),
    });
    const m = await hub.waitForOutput(/ocm-ts hub ready: apiserver (\S+) admin-kubeconfig (\S+)/, 60_000);
    return finishHub(kind, dir, m[1]!, readFileSync(join(dir, 'pki', 'ca.crt'), 'utf8'), m[2]!, ctx.signingSeconds, [() => hub.stop()]);
  }
  if (kind === 'ocm-ts@kube') {
    const { cp, dir } = await startRealHub(ctx, kind, name);
    // Our controllers and our admission webhook server in one process, as deploy/hub runs them.
    const serving = await webhookServing(dir);
    const hub = startChild({
      name: `${name}-controllers`,
      ...ocmTsCommand([
        'hub',
        `--kubeconfig=${cp.adminKubeconfigPath}`,
        '--listen=127.0.0.1:0',
        '--disable-leader-election',
        '--feature-gates=ManagedClusterAutoApproval=true',
        `--auto-approved-csr-users=${autoUsers}`,
        `--webhook-listen=127.0.0.1:${serving.port}`,
        `--tls-cert-file=${serving.certFile}`,
        `--tls-private-key-file=${serving.keyFile}`,
      ]),
      logPath: join(dir, 'ocm-ts-hub.log'),
    });
    await hub.waitForOutput(/ocm-ts hub ready/, 60_000);
    await registerAdmissionWebhooks(cp.admin, `https://127.0.0.1:${serving.port}`, serving.caPem);
    await waitWebhookServing(cp.admin);
    return finishHub(kind, dir, cp.url, cp.caPem, cp.adminKubeconfigPath, ctx.signingSeconds, [() => cp.stop(), () => hub.stop()]);
  }
  if (kind === 'OCM@kube') {
    const { cp, dir } = await startRealHub(ctx, kind, name);
    const webhook = await startOcmWebhook(ctx.ocmRegistration, dir, cp);
    const controller = await startOcmController(ctx, dir, cp.adminKubeconfigPath);
    return finishHub(kind, dir, cp.url, cp.caPem, cp.adminKubeconfigPath, ctx.signingSeconds, [() => cp.stop(), () => webhook.stop(), () => controller.stop()]);
  }
  // OCM's controller on our API server, which applies OCM's admission in process.
  const dir = join(ctx.runDir, name);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const server = startChild({
    name: `${name}-apiserver`,
    ...ocmTsCommand(['apiserver', `--data-dir=${dir}`, '--listen=127.0.0.1:0', `--cluster-signing-duration=${ctx.signingSeconds}s`, '--ocm-admission']),
    logPath: join(dir, 'ocm-ts-apiserver.log'),
  });
  const m = await server.waitForOutput(/listening on (\S+)/, 60_000);
  const adminKubeconfigPath = join(dir, 'admin.kubeconfig');
  const admin = createKubeClient({ kubeconfigPath: adminKubeconfigPath });
  try {
    await installHubBasics(admin);
  } finally {
    admin.close();
  }
  const controller = await startOcmController(ctx, dir, adminKubeconfigPath);
  return finishHub(kind, dir, m[1]!, readFileSync(join(dir, 'pki', 'ca.crt'), 'utf8'), adminKubeconfigPath, ctx.signingSeconds, [() => server.stop(), () => controller.stop()]);
}
