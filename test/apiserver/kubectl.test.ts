// kubectl against the embedded server (skipped when kubectl is not on PATH).

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startTestApiServer, type TestApiServer } from '../helpers/embedded-server.js';
import { findKubectl } from '../helpers/kubectl.js';
import { waitFor } from '../helpers/wait-for.js';

const run = promisify(execFile);

const kubectlPath = await findKubectl();
const skip = kubectlPath ? false : 'kubectl not found on PATH; skipping kubectl compatibility tests';

describe('kubectl compatibility', { skip }, () => {
  let srv: TestApiServer;
  let work: string;
  const kubectl = async (...args: string[]): Promise<string> => {
    const { stdout } = await run(kubectlPath as string, ['--kubeconfig', srv.adminKubeconfigPath, '--cache-dir', join(work, 'cache'), ...args], { timeout: 60_000 });
    return stdout;
  };
  before(async () => {
    srv = await startTestApiServer();
    work = await mkdtemp(join(tmpdir(), 'ocm-ts-kubectl-'));
  });
  after(async () => {
    await srv.stop();
    await rm(work, { recursive: true, force: true });
  });

  it('should create, get (table, json, yaml), apply twice, patch, label, annotate and delete', async () => {
    const manifest = join(work, 'cm.yaml');
    await writeFile(manifest, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: demo\n  namespace: default\ndata:\n  a: "1"\n');
    assert.match(await kubectl('create', '-f', manifest), /configmap\/demo created/);
    assert.match(await kubectl('get', 'cm', 'demo'), /^NAME\s+.*\ndemo\s/);
    assert.equal(JSON.parse(await kubectl('get', 'cm', 'demo', '-o', 'json')).data.a, '1');
    assert.match(await kubectl('get', 'cm', 'demo', '-o', 'yaml'), /a: "1"/);
    await writeFile(manifest, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: demo\n  namespace: default\ndata:\n  a: "2"\n');
    assert.match(await kubectl('apply', '-f', manifest), /configmap\/demo configured/);
    assert.match(await kubectl('apply', '-f', manifest), /configmap\/demo unchanged/);
    await kubectl('patch', 'cm', 'demo', '--type', 'merge', '-p', '{"data":{"b":"3"}}');
    await kubectl('patch', 'cm', 'demo', '--type', 'json', '-p', '[{"op":"add","path":"/data/c","value":"4"}]');
    await kubectl('patch', 'cm', 'demo', '-p', '{"data":{"d":"5"}}');
    await kubectl('label', 'cm', 'demo', 'team=x');
    await kubectl('annotate', 'cm', 'demo', 'note=y');
    const obj = JSON.parse(await kubectl('get', 'cm', 'demo', '-o', 'json'));
    assert.deepEqual(obj.data, { a: '2', b: '3', c: '4', d: '5' });
    assert.equal(obj.metadata.labels.team, 'x');
    assert.equal(obj.metadata.annotations.note, 'y');
    assert.match(await kubectl('get', 'cm', '-l', 'team=x'), /demo/);
    assert.match(await kubectl('delete', 'cm', 'demo'), /configmap "demo" deleted/);
  });

  it('should wait for a CRD to become Established and print server-side errors', async () => {
    const crd = join(work, 'crd.yaml');
    await writeFile(crd, `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {kind: Widget, plural: widgets, singular: widget, listKind: WidgetList}
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
            properties:
              size: {type: integer}
`);
    await kubectl('apply', '-f', crd);
    assert.match(await kubectl('wait', '--for=condition=Established', 'crd/widgets.example.com', '--timeout=20s'), /condition met/);
    await assert.rejects(kubectl('get', 'cm', 'missing'), (e: Error & { stderr?: string }) => {
      assert.match(e.stderr ?? '', /Error from server \(NotFound\): configmaps "missing" not found/);
      return true;
    });
  });

  it('should stream changes with get -w', async () => {
    await kubectl('create', 'configmap', 'watched', '--from-literal=a=1');
    const child = spawn(kubectlPath as string, ['--kubeconfig', srv.adminKubeconfigPath, '--cache-dir', join(work, 'cache'), 'get', 'cm', 'watched', '-w', '-o', 'name'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
    });
    try {
      await waitFor(() => out.includes('configmap/watched'), 30_000);
      const before = out.length;
      await kubectl('label', 'cm', 'watched', 'x=y');
      await waitFor(() => out.length > before, 15_000);
    } finally {
      child.kill('SIGTERM');
    }
  });
});
