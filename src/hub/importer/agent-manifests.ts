// The objects the importer installs on a cluster: the agent's own manifest (deploy/agent/agent.yaml,
// shipped with the package, with its IMAGE and CLUSTER_NAME placeholders) filled from an
// AgentImportConfig, plus the bootstrap kubeconfig Secret and, when credentials are given, an image
// pull Secret. Rendering is pure; only loadAgentTemplate reads a file.

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { KubeObject } from '../../api/meta.js';
import { errorMessage } from '../../util/errors.js';
import { isPlainObject } from '../../util/merge-patch.js';
import { parseYamlDocuments } from '../../util/yaml.js';
import { AGENT_NAMESPACE, type AgentImportConfig } from './import-config.js';
import { DEFAULT_AGENT_IMAGE, DEFAULT_IMAGE_PULL_SECRET } from './importer-options.js';

/** The Secret the agent's Deployment mounts as its bootstrap kubeconfig (OCM's name). */
const BOOTSTRAP_SECRET = 'bootstrap-hub-kubeconfig';

/** The manifest beside the package's dist/ and src/ (two folders up from this module's folder). */
function agentTemplatePath(): string {
  return fileURLToPath(new URL('../../../deploy/agent/agent.yaml', import.meta.url));
}

export function loadAgentTemplate(path = agentTemplatePath()): string {
  return readFileSync(path, 'utf8');
}

class TemplateError extends Error {
  constructor(message: string) {
    super(`agent manifest template: ${message}`);
    this.name = 'TemplateError';
  }
}

interface PodSpec {
  containers?: Record<string, unknown>[];
  imagePullSecrets?: { name: string }[];
  nodeSelector?: Record<string, string>;
  tolerations?: Record<string, unknown>[];
  priorityClassName?: string;
  [field: string]: unknown;
}

interface Deployment extends KubeObject {
  spec?: { replicas?: number; template?: { spec?: PodSpec }; [field: string]: unknown };
}

/** Parses the template into objects, checking that it holds one Deployment with a container. */
export function parseAgentTemplate(text: string): KubeObject[] {
  let docs: unknown[];
  try {
    docs = parseYamlDocuments(text);
  } catch (err) {
    throw new TemplateError(errorMessage(err));
  }
  const objects: KubeObject[] = [];
  for (const obj of docs) {
    if (obj === null) continue;
    if (!isPlainObject(obj) || typeof obj['kind'] !== 'string' || !isPlainObject(obj['metadata'])) throw new TemplateError('every document must be a Kubernetes object');
    objects.push(obj as unknown as KubeObject);
  }
  const deployments = objects.filter((o) => o.kind === 'Deployment');
  if (deployments.length !== 1 || ((deployments[0] as Deployment).spec?.template?.spec?.containers ?? []).length === 0) {
    throw new TemplateError('it must hold exactly one Deployment with a container');
  }
  return objects;
}

function replacePlaceholder(v: unknown, from: string, to: string): unknown {
  if (typeof v === 'string') return v.split(from).join(to);
  if (Array.isArray(v)) return v.map((x) => replacePlaceholder(x, from, to));
  return v;
}

function fillDeployment(d: Deployment, c: AgentImportConfig): void {
  const spec = d.spec!;
  spec.replicas = c.replicas;
  const pod = spec.template!.spec!;
  for (const container of pod.containers ?? []) {
    container['image'] = c.image !== '' ? c.image : DEFAULT_AGENT_IMAGE;
    if (c.imagePullPolicy !== undefined) container['imagePullPolicy'] = c.imagePullPolicy;
    container['args'] = replacePlaceholder(container['args'], 'CLUSTER_NAME', c.clusterName);
  }
  const pullSecrets = [...c.imagePullSecrets, ...(c.dockerConfigJson !== undefined ? [DEFAULT_IMAGE_PULL_SECRET] : [])];
  if (pullSecrets.length > 0) pod.imagePullSecrets = [...new Set(pullSecrets)].map((name) => ({ name }));
  if (c.nodeSelector !== undefined) pod.nodeSelector = { ...c.nodeSelector };
  if (c.tolerations !== undefined) pod.tolerations = c.tolerations.map((t) => ({ ...t }));
  if (c.priorityClassName !== undefined) pod.priorityClassName = c.priorityClassName;
}

function secret(name: string, type: string, data: Record<string, string>): KubeObject {
  const encoded = Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')]));
  return { apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: AGENT_NAMESPACE }, type, data: encoded } as KubeObject;
}

/**
 * The objects to apply, in order: the template's Namespace, ServiceAccount and RBAC, then the
 * Secrets, then the Deployment last, so that its pod finds everything it mounts.
 */
export function renderAgentManifests(template: readonly KubeObject[], c: AgentImportConfig): KubeObject[] {
  const objects = template.map((o) => structuredClone(o));
  const deployment = objects.find((o) => o.kind === 'Deployment') as Deployment;
  fillDeployment(deployment, c);
  const secrets: KubeObject[] = [];
  if (c.bootstrapHubKubeconfig !== undefined) secrets.push(secret(BOOTSTRAP_SECRET, 'Opaque', { kubeconfig: c.bootstrapHubKubeconfig }));
  if (c.dockerConfigJson !== undefined) secrets.push(secret(DEFAULT_IMAGE_PULL_SECRET, 'kubernetes.io/dockerconfigjson', { '.dockerconfigjson': c.dockerConfigJson }));
  return [...objects.filter((o) => o !== deployment), ...secrets, deployment];
}
