import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  SelectorParseError, escapeFieldValue, formatLabelSelector, labelKeyProblems, labelSelectorFromObject,
  matchesFields, matchesLabels, parseFieldSelector, parseLabelSelector, selectableFieldValues, supportedFieldLabels,
} from './selectors.js';

describe('parseLabelSelector + matchesLabels', () => {
  const labels = { app: 'web', tier: 'front', n: '7', 'example.com/role': 'x' };
  const cases: Array<{ sel: string; labels: Record<string, string>; match: boolean }> = [
    { sel: '', labels, match: true },
    { sel: '   ', labels, match: true },
    { sel: 'app=web', labels, match: true },
    { sel: 'app==web', labels, match: true },
    { sel: 'app = web', labels, match: true },
    { sel: 'app=db', labels, match: false },
    { sel: 'app!=db', labels, match: true },
    { sel: 'app!=web', labels, match: false },
    { sel: 'missing!=x', labels, match: true },
    { sel: 'app in (web,db)', labels, match: true },
    { sel: 'app in (db)', labels, match: false },
    { sel: 'missing in (db)', labels, match: false },
    { sel: 'app notin (db)', labels, match: true },
    { sel: 'app notin (web, db)', labels, match: false },
    { sel: 'missing notin (x)', labels, match: true },
    { sel: 'app', labels, match: true },
    { sel: 'missing', labels, match: false },
    { sel: '!missing', labels, match: true },
    { sel: '!app', labels, match: false },
    { sel: 'n>5', labels, match: true },
    { sel: 'n>7', labels, match: false },
    { sel: 'n<8', labels, match: true },
    { sel: 'app>1', labels, match: false },
    { sel: 'app=web,tier=front', labels, match: true },
    { sel: 'app=web,tier=back', labels, match: false },
    { sel: 'example.com/role=x,!gone', labels, match: true },
    { sel: 'app=', labels: { app: '' }, match: true },
    { sel: 'app=', labels, match: false },
    { sel: 'app in (,x)', labels: { app: '' }, match: true },
    { sel: 'x in (in,notin)', labels: { x: 'notin' }, match: true },
  ];
  for (const c of cases) {
    it(`should ${c.match ? '' : 'not '}match ${JSON.stringify(c.sel)}`, () => {
      assert.equal(matchesLabels(parseLabelSelector(c.sel), c.labels), c.match);
    });
  }

  it('should match undefined labels like empty ones', () => {
    assert.equal(matchesLabels(parseLabelSelector('!a'), undefined), true);
    assert.equal(matchesLabels(parseLabelSelector('a'), undefined), false);
  });

  it('should sort requirements by key and values within a requirement', () => {
    const sel = parseLabelSelector('z in (b,a,b),a=1');
    assert.deepEqual(sel.requirements, [
      { key: 'a', operator: 'Equals', values: ['1'] },
      { key: 'z', operator: 'In', values: ['a', 'b'] },
    ]);
    assert.equal(formatLabelSelector(sel), 'a=1,z in (a,b)');
  });
});

describe('parseLabelSelector errors', () => {
  const cases: Array<{ sel: string; message: string | RegExp }> = [
    { sel: '=a', message: "found '=', expected: !, identifier, or 'end of string'" },
    { sel: 'a=b,', message: "found '', expected: identifier after ','" },
    { sel: 'a=b c', message: "found 'c', expected: ',' or 'end of string'" },
    { sel: '!', message: "unable to parse requirement: found '', expected: identifier" },
    { sel: '!!', message: "unable to parse requirement: found '!', expected: identifier" },
    { sel: 'a in b', message: "unable to parse requirement: found 'b' expected: '('" },
    { sel: 'a in (b', message: "unable to parse requirement: found '', expected: ',' or ')'" },
    { sel: 'a (b)', message: "unable to parse requirement: found '(', expected: in, notin, =, ==, !=, gt, lt" },
    { sel: 'a=(', message: "unable to parse requirement: found '(', expected: identifier" },
    { sel: 'a>x', message: /^unable to parse requirement: values\[0\]: Invalid value: "x": for 'Gt', 'Lt' operators, the value must be an integer$/ },
    { sel: 'a/b/c', message: /^unable to parse requirement: <nil>: Invalid value: "a\/b\/c": a qualified name must consist of/ },
    { sel: 'Bad_/x=1', message: /^unable to parse requirement: <nil>: Invalid value: "Bad_\/x": prefix part a lowercase RFC 1123 subdomain/ },
    { sel: 'a=b!c', message: "found '!', expected: ',' or 'end of string'" },
    { sel: 'a=-x', message: /^unable to parse requirement: values\[0\]\[a\]: Invalid value: "-x": a valid label must be an empty string/ },
    { sel: `a=${'v'.repeat(64)}`, message: /must be no more than 63 characters/ },
  ];
  for (const c of cases) {
    it(`should reject ${JSON.stringify(c.sel)}`, () => {
      assert.throws(() => parseLabelSelector(c.sel), (e: unknown) => {
        assert.ok(e instanceof SelectorParseError);
        if (typeof c.message === 'string') assert.equal(e.message, c.message);
        else assert.match(e.message, c.message);
        return true;
      });
    });
  }

  it('should describe each key problem as kube-apiserver does', () => {
    assert.deepEqual(labelKeyProblems('ok'), []);
    assert.deepEqual(labelKeyProblems('example.com/ok'), []);
    assert.deepEqual(labelKeyProblems('/x'), ['prefix part must be non-empty']);
    assert.deepEqual(labelKeyProblems('x/'), ['name part must be non-empty']);
    assert.match(labelKeyProblems('a'.repeat(64))[0] ?? '', /^name part must be no more than 63 characters$/);
    assert.equal(
      labelKeyProblems('-a')[0],
      "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    );
  });
});

describe('labelSelectorFromObject', () => {
  const cases: Array<{ name: string; obj: Parameters<typeof labelSelectorFromObject>[0]; labels: Record<string, string>; match: boolean }> = [
    { name: 'undefined selects nothing', obj: undefined, labels: {}, match: false },
    { name: 'null selects nothing', obj: null, labels: { a: 'b' }, match: false },
    { name: 'empty selects everything', obj: {}, labels: {}, match: true },
    { name: 'matchLabels equal', obj: { matchLabels: { a: 'b' } }, labels: { a: 'b' }, match: true },
    { name: 'matchLabels differ', obj: { matchLabels: { a: 'b' } }, labels: { a: 'c' }, match: false },
    { name: 'In', obj: { matchExpressions: [{ key: 'a', operator: 'In', values: ['x', 'y'] }] }, labels: { a: 'y' }, match: true },
    { name: 'NotIn', obj: { matchExpressions: [{ key: 'a', operator: 'NotIn', values: ['x'] }] }, labels: { a: 'x' }, match: false },
    { name: 'Exists', obj: { matchExpressions: [{ key: 'a', operator: 'Exists' }] }, labels: { a: '' }, match: true },
    { name: 'DoesNotExist', obj: { matchExpressions: [{ key: 'a', operator: 'DoesNotExist' }] }, labels: { a: '' }, match: false },
    {
      name: 'labels and expressions AND',
      obj: { matchLabels: { a: 'b' }, matchExpressions: [{ key: 'c', operator: 'Exists' }] },
      labels: { a: 'b' },
      match: false,
    },
  ];
  for (const c of cases) {
    it(`should handle ${c.name}`, () => {
      assert.equal(matchesLabels(labelSelectorFromObject(c.obj), c.labels), c.match);
    });
  }

  it('should reject unknown operators and bad values', () => {
    assert.throws(() => labelSelectorFromObject({ matchExpressions: [{ key: 'a', operator: 'Gt', values: ['1'] }] }),
      { message: '"Gt" is not a valid label selector operator' });
    assert.throws(() => labelSelectorFromObject({ matchExpressions: [{ key: 'a', operator: 'In', values: [] }] }),
      { message: `values: Invalid value: []string{}: for 'in', 'notin' operators, values set can't be empty` });
    assert.throws(() => labelSelectorFromObject({ matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] }),
      { message: 'values: Invalid value: []string{"x"}: values set must be empty for exists and does not exist' });
    assert.throws(() => labelSelectorFromObject({ matchLabels: { 'a b': 'c' } }), { message: /^key: Invalid value: "a b": name part must consist of/ });
  });
});

describe('field selectors', () => {
  const fields = ['metadata.name', 'metadata.namespace', 'type'];
  const values = { 'metadata.name': 'a,b', 'metadata.namespace': 'ns', type: 'Opaque' };
  const cases: Array<{ sel: string; match: boolean }> = [
    { sel: '', match: true },
    { sel: 'metadata.namespace=ns', match: true },
    { sel: 'metadata.namespace==ns', match: true },
    { sel: 'metadata.namespace!=ns', match: false },
    { sel: 'metadata.name=a\\,b', match: true },
    { sel: 'metadata.name=a\\,b,type=Opaque', match: true },
    { sel: 'metadata.name=a\\,b,type!=Opaque', match: false },
    { sel: 'type=', match: false },
  ];
  for (const c of cases) {
    it(`should ${c.match ? '' : 'not '}match ${JSON.stringify(c.sel)}`, () => {
      assert.equal(matchesFields(parseFieldSelector(c.sel, fields), values), c.match);
    });
  }

  it('should treat absent fields as empty', () => {
    assert.equal(matchesFields(parseFieldSelector('type=', fields), {}), true);
  });

  const errorCases: Array<{ sel: string; message: string }> = [
    { sel: 'spec.foo=x', message: 'field label not supported: spec.foo' },
    { sel: 'metadata.name', message: "invalid selector: 'metadata.name'; can't understand 'metadata.name'" },
    { sel: 'metadata.name=a\\x', message: 'invalid field selector: invalid escape sequence: \\x' },
    { sel: 'metadata.name=a=b', message: 'invalid field selector: unescaped character in value: =' },
  ];
  for (const c of errorCases) {
    it(`should reject ${JSON.stringify(c.sel)}`, () => {
      assert.throws(() => parseFieldSelector(c.sel, fields), (e: unknown) => {
        assert.ok(e instanceof SelectorParseError);
        assert.equal(e.message, c.message);
        return true;
      });
    });
  }

  it('should escape values so that they round-trip', () => {
    const v = 'x,y=z\\w';
    const sel = parseFieldSelector(`metadata.name=${escapeFieldValue(v)}`, fields);
    assert.equal(sel.requirements[0]?.value, v);
  });
});

describe('selectable fields per kind', () => {
  it('should list kind-specific field labels', () => {
    assert.deepEqual(supportedFieldLabels({ group: '', kind: 'Secret', namespaced: true }), ['metadata.name', 'metadata.namespace', 'type']);
    assert.ok(supportedFieldLabels({ group: 'certificates.k8s.io', kind: 'CertificateSigningRequest', namespaced: false }).includes('spec.signerName'));
    assert.ok(supportedFieldLabels({ group: '', kind: 'Event', namespaced: true }).includes('involvedObject.uid'));
    assert.ok(supportedFieldLabels({ group: 'events.k8s.io', kind: 'Event', namespaced: true }).includes('regarding.name'));
    assert.deepEqual(supportedFieldLabels({ group: 'cluster.open-cluster-management.io', kind: 'ManagedCluster', namespaced: false }),
      ['metadata.name', 'metadata.namespace']);
  });

  it('should read values from objects', () => {
    const ev = {
      apiVersion: 'v1', kind: 'Event', metadata: { name: 'e', namespace: 'ns' },
      involvedObject: { kind: 'Pod', name: 'p' }, reason: 'Started', source: { component: 'kubelet' }, type: 'Normal',
    };
    const v = selectableFieldValues(ev, { group: '', kind: 'Event', namespaced: true });
    assert.equal(v['involvedObject.kind'], 'Pod');
    assert.equal(v['involvedObject.uid'], '');
    assert.equal(v['source'], 'kubelet');
    assert.equal(v['metadata.namespace'], 'ns');
    const node = selectableFieldValues({ metadata: { name: 'n1' } }, { group: '', kind: 'Node', namespaced: false });
    assert.deepEqual(node, { 'metadata.name': 'n1', 'metadata.namespace': '', 'spec.unschedulable': 'false' });
    const csr = selectableFieldValues({ metadata: { name: 'c' }, spec: { signerName: 'kubernetes.io/kube-apiserver-client' } },
      { group: 'certificates.k8s.io', kind: 'CertificateSigningRequest', namespaced: false });
    assert.equal(csr['spec.signerName'], 'kubernetes.io/kube-apiserver-client');
  });
});
