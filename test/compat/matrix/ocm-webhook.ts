// OCM's admission on a real kube-apiserver: a webhook server (OCM's own `registration webhook-server`,
// or ours) on loopback with a serving certificate from a CA of its own, and the three webhook
// configurations OCM's cluster-manager installs, pointed at it by URL instead of a Service.
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ensurePki } from '../../../src/apiserver/pki/index.js';
import type { KubeClient } from '../../../src/client/types.js';
import { startChild, type Child } from '../infra/child-process.js';
import type { KubeControlPlane } from '../infra/kube-control-plane.js';
import { freePort } from '../infra/ports.js';
import { waitUntil } from '../infra/wait-until.js';

interface WebhookSpec {
  kind: 'MutatingWebhookConfiguration' | 'ValidatingWebhookConfiguration';
  name: string;
  path: string;
  version: string;
  resource: string;
}

const WEBHOOKS: readonly WebhookSpec[] = [
  { kind: 'MutatingWebhookConfiguration', name: 'managedclustermutators.admission.cluster.open-cluster-management.io', path: '/mutate-cluster-open-cluster-management-io-v1-managedcluster', version: '*', resource: 'managedclusters' },
  { kind: 'ValidatingWebhookConfiguration', name: 'managedclustervalidators.admission.cluster.open-cluster-management.io', path: '/validate-cluster-open-cluster-management-io-v1-managedcluster', version: '*', resource: 'managedclusters' },
  { kind: 'ValidatingWebhookConfiguration', name: 'managedclustersetbindingvalidators.admission.cluster.open-cluster-management.io', path: '/validate-cluster-open-cluster-management-io-v1beta2-managedclustersetbinding', version: 'v1beta2', resource: 'managedclustersetbindings' },
];

export async function registerAdmissionWebhooks(admin: KubeClient, baseUrl: string, caPem: string): Promise<void> {
  for (const w of WEBHOOKS) {
    const plural = w.kind === 'MutatingWebhookConfiguration' ? 'mutatingwebhookconfigurations' : 'validatingwebhookconfigurations';
    await admin.request('POST', `/apis/admissionregistration.k8s.io/v1/${plural}`, {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: w.kind,
      metadata: { name: w.name },
      webhooks: [
        {
          name: w.name,
          failurePolicy: 'Fail',
          clientConfig: { url: `${baseUrl}${w.path}`, caBundle: Buffer.from(caPem).toString('base64') },
          rules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: ['cluster.open-cluster-management.io'], apiVersions: [w.version], resources: [w.resource] }],
          admissionReviewVersions: ['v1beta1', 'v1'],
          sideEffects: 'None',
          timeoutSeconds: 10,
        },
      ],
    });
  }
}

export interface WebhookServing {
  port: number;
  caPem: string;
  certFile: string;
  keyFile: string;
}

export async function webhookServing(dir: string): Promise<WebhookServing> {
  const pkiDir = join(dir, 'webhook-pki');
  const pki = await ensurePki(pkiDir, { caCommonName: 'compat-webhook-ca' });
  return { port: await freePort(), caPem: pki.caPem, certFile: join(pkiDir, 'apiserver.crt'), keyFile: join(pkiDir, 'apiserver.key') };
}

/** Waits until the API server's calls through the webhook succeed: a dry-run create is admitted. */
export async function waitWebhookServing(admin: KubeClient): Promise<void> {
  await waitUntil('admission webhook serving', 60_000, async () => {
    await admin.request('POST', '/apis/cluster.open-cluster-management.io/v1/managedclusters?dryRun=All', {
      apiVersion: 'cluster.open-cluster-management.io/v1',
      kind: 'ManagedCluster',
      metadata: { name: 'webhook-probe' },
      spec: { hubAcceptsClient: false },
    });
    return true;
  }, 250);
}

export async function startOcmWebhook(registration: string, dir: string, cp: KubeControlPlane): Promise<Child> {
  const serving = await webhookServing(dir);
  const certDir = join(dir, 'ocm-webhook-certs');
  mkdirSync(certDir, { recursive: true, mode: 0o700 });
  copyFileSync(serving.certFile, join(certDir, 'tls.crt'));
  copyFileSync(serving.keyFile, join(certDir, 'tls.key'));
  const child = startChild({
    name: 'ocm-registration-webhook',
    command: registration,
    // OCM v1.2.1's webhook server takes only these; its health and metrics ports are fixed.
    args: ['webhook-server', `--port=${serving.port}`, `--certdir=${certDir}`, `--kubeconfig=${cp.adminKubeconfigPath}`],
    logPath: join(dir, 'ocm-registration-webhook.log'),
  });
  await registerAdmissionWebhooks(cp.admin, `https://127.0.0.1:${serving.port}`, serving.caPem);
  await waitWebhookServing(cp.admin);
  return child;
}
