// kubectl reading the server's OpenAPI documents: explain on built-in kinds and OCM CRDs, a CRD
// created at run time, and create/apply with kubectl's default strict validation (skipped when
// kubectl is not on PATH).

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { HUB_CRD_NAMES } from '../../src/api/crds.js';
import { findKubectl } from '../helpers/kubectl.js';
import { startOcmApiServer, type OcmApiServer } from '../helpers/ocm-api-server.js';

const run = promisify(execFile);

const kubectlPath = await findKubectl();
const skip = kubectlPath ? false : 'kubectl not found on PATH; skipping kubectl explain tests';

describe('kubectl and the OpenAPI documents', { skip }, () => {
  let api: OcmApiServer;
  let work: string;
  const kubectl = async (...args: string[]): Promise<{ stdout: string; stderr: string }> =>
    run(kubectlPath as string, ['--kubeconfig', api.server.adminKubeconfigPath, '--cache-dir', join(work, 'cache'), ...args], { timeout: 60_000 });
  const failure = async (...args: string[]): Promise<string> => {
    try {
      await kubectl(...args);
    } catch (err) {
      return String((err as { stderr?: string }).stderr);
    }
    throw new Error(`kubectl ${args.join(' ')} succeeded`);
  };
  before(async () => {
    api = await startOcmApiServer({ crds: HUB_CRD_NAMES });
    work = await mkdtemp(join(tmpdir(), 'ocm-ts-openapi-'));
  });
  after(async () => {
    await api.stop();
    await rm(work, { recursive: true, force: true });
  });

  it('should explain OCM custom resources and their fields', async () => {
    const spec = (await kubectl('explain', 'managedclusters.spec')).stdout;
    assert.match(spec, /GROUP:\s+cluster\.open-cluster-management\.io/);
    assert.match(spec, /KIND:\s+ManagedCluster/);
    assert.match(spec, /hubAcceptsClient\s+<boolean>/);
    assert.match(spec, /taints\s+<\[\]Object>/);
    assert.match((await kubectl('explain', 'managedclusters.spec.hubAcceptsClient')).stdout, /FIELD: hubAcceptsClient <boolean>/);
    const sets = (await kubectl('explain', '--api-version=cluster.open-cluster-management.io/v1beta2', 'managedclustersets')).stdout;
    assert.match(sets, /KIND:\s+ManagedClusterSet/);
    assert.match(sets, /VERSION:\s+v1beta2/);
    assert.match(sets, /spec\s+<Object>/);
    assert.match(sets, /metadata\s+<ObjectMeta>/);
  });

  it('should explain built-in kinds down to ObjectMeta', async () => {
    const meta = (await kubectl('explain', 'namespaces.metadata')).stdout;
    assert.match(meta, /KIND:\s+Namespace/);
    assert.match(meta, /FIELD: metadata <ObjectMeta>/);
    for (const field of ['annotations\\s+<map\\[string\\]string>', 'labels\\s+<map\\[string\\]string>', 'name\\s+<string>', 'ownerReferences\\s+<\\[\\]OwnerReference>']) {
      assert.match(meta, new RegExp(field));
    }
    assert.match((await kubectl('explain', 'configmaps')).stdout, /data\s+<Object>/);
  });

  it('should explain a CRD created at run time', async () => {
    const crd = join(work, 'crd.yaml');
    await writeFile(crd, `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: sprockets.example.com
spec:
  group: example.com
  names: {kind: Sprocket, plural: sprockets}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            description: What the sprocket should be.
            properties:
              teeth: {type: integer, description: Number of teeth.}
`);
    await kubectl('create', '-f', crd);
    await kubectl('wait', '--for=condition=Established', 'crd/sprockets.example.com', '--timeout=30s');
    const out = (await kubectl('explain', 'sprockets.spec')).stdout;
    assert.match(out, /KIND:\s+Sprocket/);
    assert.match(out, /What the sprocket should be\./);
    assert.match(out, /teeth\s+<integer>\n\s+Number of teeth\./);
  });

  it('should create and apply with default validation: server-side checks, no patch warnings', async () => {
    const cluster = join(work, 'mc.yaml');
    const manifest = (accept: boolean): string => `apiVersion: cluster.open-cluster-management.io/v1
kind: ManagedCluster
metadata:
  name: c1
spec:
  hubAcceptsClient: ${accept}
`;
    await writeFile(cluster, manifest(false));
    const created = await kubectl('apply', '-f', cluster);
    assert.match(created.stdout, /managedcluster.cluster.open-cluster-management.io\/c1 created/);
    await writeFile(cluster, manifest(true));
    const applied = await kubectl('apply', '-f', cluster);
    assert.match(applied.stdout, /configured/);
    assert.equal(applied.stderr, '');
    const cm = join(work, 'cm.yaml');
    await writeFile(cm, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: demo\n  namespace: default\ndata:\n  a: "1"\n');
    assert.equal((await kubectl('apply', '-f', cm)).stderr, '');
    await writeFile(cm, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: demo\n  namespace: default\ndata:\n  a: "2"\n');
    const cmApplied = await kubectl('apply', '-f', cm);
    assert.match(cmApplied.stdout, /configmap\/demo configured/);
    assert.equal(cmApplied.stderr, '');

    const bad = join(work, 'bad.yaml');
    await writeFile(bad, 'apiVersion: cluster.open-cluster-management.io/v1\nkind: ManagedCluster\nmetadata:\n  name: c2\nspec:\n  hubAcceptsClient: true\n  bogus: 1\n');
    assert.match(await failure('create', '-f', bad), /bogus/);
  });
});
