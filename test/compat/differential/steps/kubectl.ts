// The same checks through kubectl: exit codes and outputs (normalised) must agree.
import type { KubectlAnswer, KubectlStep } from '../types.js';

const NS = 'diff-kubectl';
const k = (name: string, args: string[], extra: Partial<KubectlStep> = {}): KubectlStep => ({ kind: 'kubectl', name, args, ...extra });

const cmYaml = (data: string): string => `apiVersion: v1
kind: ConfigMap
metadata:
  name: kc-cm
  namespace: ${NS}
  labels:
    app: diff
data:
${data}`;

const widgetYaml = `apiVersion: diff.example.com/v1
kind: Widget
metadata:
  name: kc-widget
  namespace: ${NS}
spec:
  size: 2
`;

/** kubectl diff prints temp folder names and file times; only the changed lines matter. */
function diffLines(out: KubectlAnswer): KubectlAnswer {
  const changed = out.stdout.split('\n').filter((l) => /^[+-]/.test(l) && !/^(\+\+\+|---) /.test(l) && !/^[+-]\s+(generation|resourceVersion):/.test(l));
  return { ...out, stdout: changed.join('\n') };
}

/** Only the rows of api-resources for kinds both servers serve by design. */
function someResources(out: KubectlAnswer): KubectlAnswer {
  const wanted = /^(NAME|configmaps|secrets|namespaces|serviceaccounts|events|leases|roles|rolebindings|clusterroles|clusterrolebindings|certificatesigningrequests|customresourcedefinitions|widgets|managedclusters|subjectaccessreviews|selfsubjectreviews)\s/;
  // Column widths follow the longest name of all rows, which differ between the servers.
  return { ...out, stdout: out.stdout.split('\n').filter((l) => wanted.test(l)).map((l) => l.replace(/ {2,}/g, '  ')).join('\n') };
}

export function kubectlSteps(csrPem: string): KubectlStep[] {
  const csrYaml = `apiVersion: certificates.k8s.io/v1\nkind: CertificateSigningRequest\nmetadata:\n  name: kc-csr\nspec:\n  request: ${Buffer.from(csrPem).toString('base64')}\n  signerName: kubernetes.io/kube-apiserver-client\n  usages: [client auth]\n`;
  return [
    k('kubectl: create namespace', ['create', 'namespace', NS]),
    k('kubectl: apply creates', ['apply', '-f', '{dir}/cm.yaml'], { files: { 'cm.yaml': cmYaml('  a: "1"\n') } }),
    k('kubectl: apply again is unchanged', ['apply', '-f', '{dir}/cm.yaml'], { files: { 'cm.yaml': cmYaml('  a: "1"\n') } }),
    k('kubectl: apply dry-run=server', ['apply', '--dry-run=server', '-f', '{dir}/cm.yaml', '-o', 'json'], { files: { 'cm.yaml': cmYaml('  a: "2"\n') } }),
    k('kubectl: diff shows the change', ['diff', '-f', '{dir}/cm.yaml'], { files: { 'cm.yaml': cmYaml('  a: "3"\n') }, normalise: diffLines }),
    k('kubectl: diff without change', ['diff', '-f', '{dir}/cm.yaml'], { files: { 'cm.yaml': cmYaml('  a: "1"\n') }, normalise: diffLines }),
    k('kubectl: apply changes', ['apply', '-f', '{dir}/cm.yaml'], { files: { 'cm.yaml': cmYaml('  a: "4"\n') } }),
    k('kubectl: apply --server-side conflicts with client-side apply', ['apply', '--server-side', '-f', '{dir}/cm.yaml'], { files: { 'cm.yaml': cmYaml('  a: "5"\n') } }),
    k('kubectl: apply --server-side --force-conflicts', ['apply', '--server-side', '--force-conflicts', '-f', '{dir}/cm.yaml'], { files: { 'cm.yaml': cmYaml('  a: "5"\n') } }),
    k('kubectl: get -o yaml', ['get', 'configmap', 'kc-cm', '-n', NS, '-o', 'json']),
    k('kubectl: patch merge', ['patch', 'configmap', 'kc-cm', '-n', NS, '--type', 'merge', '-p', '{"data":{"b":"2"}}']),
    k('kubectl: patch json', ['patch', 'configmap', 'kc-cm', '-n', NS, '--type', 'json', '-p', '[{"op":"remove","path":"/data/b"}]']),
    k('kubectl: patch strategic', ['patch', 'configmap', 'kc-cm', '-n', NS, '-p', '{"metadata":{"labels":{"x":"y"}}}']),
    k('kubectl: patch nothing', ['patch', 'configmap', 'kc-cm', '-n', NS, '--type', 'merge', '-p', '{}']),
    k('kubectl: patch missing object', ['patch', 'configmap', 'nope', '-n', NS, '--type', 'merge', '-p', '{"data":{"b":"2"}}']),
    k('kubectl: get table', ['get', 'configmaps', '-n', NS, '-l', 'app=diff']),
    k('kubectl: get -w first lines', ['get', 'configmaps', '-n', NS, '-l', 'app=diff', '-w'], { lines: 2, timeoutMs: 4000 }),
    k('kubectl: get -w -o name', ['get', 'configmaps', '-n', NS, '-l', 'app=diff', '-w', '--output-watch-events', '-o', 'name'], { lines: 1, timeoutMs: 4000 }),
    k('kubectl: apply a widget', ['apply', '-f', '{dir}/w.yaml'], { files: { 'w.yaml': widgetYaml } }),
    k('kubectl: get widgets (printer columns)', ['get', 'widgets', '-n', NS]),
    k('kubectl: get by short name', ['get', 'wd', '-n', NS, '-o', 'name']),
    k('kubectl: wait for a CRD condition', ['wait', '--for=condition=Established', 'crd/widgets.diff.example.com', '--timeout=20s']),
    k('kubectl: wait for a jsonpath value', ['wait', '--for=jsonpath={.data.a}=5', '-n', NS, 'configmap/kc-cm', '--timeout=20s']),
    k('kubectl: wait times out', ['wait', '--for=condition=Ready', '-n', NS, 'configmap/kc-cm', '--timeout=1s']),
    k('kubectl: wait for deletion of a missing object', ['wait', '--for=delete', '-n', NS, 'configmap/nope', '--timeout=2s']),
    k('kubectl: explain configmap', ['explain', 'configmap']),
    k('kubectl: explain configmap.data', ['explain', 'configmap.data']),
    k('kubectl: explain widgets.spec', ['explain', 'widgets.spec']),
    k('kubectl: explain managedclusters.spec.hubAcceptsClient', ['explain', 'managedclusters.spec.hubAcceptsClient']),
    k('kubectl: auth can-i yes', ['auth', 'can-i', 'create', 'configmaps', '-n', NS]),
    k('kubectl: auth can-i as alice', ['auth', 'can-i', 'get', 'secrets', '-n', NS, '--as', 'alice']),
    k('kubectl: auth can-i as alice through her role', ['auth', 'can-i', 'list', 'configmaps', '-n', 'diff-auth', '--as', 'alice']),
    k('kubectl: auth whoami as alice', ['auth', 'whoami', '--as', 'alice', '--as-group', 'diff-group']),
    k('kubectl: auth whoami as alice, json', ['auth', 'whoami', '--as', 'alice', '-o', 'json']),
    k('kubectl: api-resources', ['api-resources'], { normalise: someResources }),
    k('kubectl: api-resources of a group', ['api-resources', '--api-group', 'diff.example.com']),
    k('kubectl: create event source', ['create', 'configmap', 'kc-events', '-n', NS]),
    k('kubectl: events', ['events', '-n', 'diff-crud']),
    k('kubectl: events for an object', ['events', '-n', 'diff-crud', '--for', 'configmap/diff-cm']),
    k('kubectl: create a CSR', ['apply', '-f', '{dir}/csr.yaml'], { files: { 'csr.yaml': csrYaml } }),
    k('kubectl: certificate approve', ['certificate', 'approve', 'kc-csr']),
    k('kubectl: certificate approve a missing CSR', ['certificate', 'approve', 'nope']),
    k('kubectl: forbidden as alice', ['get', 'secrets', '-n', NS, '--as', 'alice']),
    k('kubectl: unknown resource type', ['get', 'nothings']),
    k('kubectl: delete', ['delete', 'configmap', 'kc-cm', '-n', NS]),
    k('kubectl: delete again', ['delete', 'configmap', 'kc-cm', '-n', NS]),
    k('kubectl: delete --ignore-not-found', ['delete', 'configmap', 'kc-cm', '-n', NS, '--ignore-not-found']),
  ];
}
