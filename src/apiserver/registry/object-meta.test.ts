import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generateName, validateMetaFields, validateName } from './object-meta.js';

describe('object metadata rules', () => {
  const names: { name: string; rule: 'subdomain' | 'label' | 'path'; ok: boolean }[] = [
    { name: 'a.b-c', rule: 'subdomain', ok: true },
    { name: 'A', rule: 'subdomain', ok: false },
    { name: 'a.b', rule: 'label', ok: false },
    { name: 'x'.repeat(64), rule: 'label', ok: false },
    { name: 'x'.repeat(253), rule: 'subdomain', ok: true },
    { name: 'system:node:a', rule: 'path', ok: true },
    { name: '..', rule: 'path', ok: false },
    { name: 'a/b', rule: 'path', ok: false },
    { name: 'a%b', rule: 'path', ok: false },
  ];
  for (const c of names) {
    it(`should ${c.ok ? 'accept' : 'refuse'} ${c.name.slice(0, 20)} as ${c.rule}`, () => {
      assert.equal(validateName(c.name, c.rule).length === 0, c.ok);
    });
  }
  it('should validate labels, annotations, finalizers and owner references', () => {
    assert.deepEqual(validateMetaFields({ labels: { 'example.com/a': 'b', c: '' }, finalizers: ['kubernetes', 'x.io/y'] }), []);
    assert.equal(validateMetaFields({ labels: { 'a b': 'c' } }).length, 1);
    assert.equal(validateMetaFields({ labels: { a: 'bad value' } }).length, 1);
    assert.equal(validateMetaFields({ finalizers: ['bad finalizer'] })[0]?.field, 'metadata.finalizers[0]');
    const two = { apiVersion: 'v1', kind: 'K', name: 'n', uid: 'u', controller: true };
    assert.equal(validateMetaFields({ ownerReferences: [two, { ...two, uid: 'v' }] }).length, 1);
  });
  it('should report every rule a name, label or finalizer breaks, one field error each, as kube-apiserver does', () => {
    const long = `-${'a'.repeat(63)}`;
    assert.deepEqual(validateName(long, 'label').map((e) => e.message.split(':')[0]), ['Invalid value', 'Invalid value']);
    assert.match(validateName(long, 'label')[0]?.message ?? '', /must be no more than 63 characters$/);
    assert.match(validateName(long, 'label')[1]?.message ?? '', /a lowercase RFC 1123 label must consist of/);
    assert.equal(validateMetaFields({ labels: { [long]: `${long}` } }).length, 4);
    assert.equal(validateMetaFields({ finalizers: [long] }).length, 2);
  });
  it('should generate names from the prefix (max 58 chars) and 5 safe characters', () => {
    let i = 0;
    const seq = [0, 0.99, 0.5, 0.1, 0.2];
    assert.match(generateName('p-', () => seq[i++ % seq.length] as number), /^p-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    assert.equal(generateName('x'.repeat(70), () => 0).length, 63);
  });
});
