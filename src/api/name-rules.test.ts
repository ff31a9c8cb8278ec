import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  DNS1123_LABEL_MESSAGE, DNS1123_SUBDOMAIN_MESSAGE, dns1123LabelProblems, isDns1123Label, isDns1123Subdomain, labelValueProblems,
  qualifiedNameProblems,
} from './name-rules.js';

describe('name rules', () => {
  it('should word the DNS-1123 rules as kube-apiserver does', () => {
    assert.equal(DNS1123_LABEL_MESSAGE, "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')");
    assert.equal(DNS1123_SUBDOMAIN_MESSAGE, "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')");
  });

  const names: Array<{ s: string; label: boolean; subdomain: boolean }> = [
    { s: 'a', label: true, subdomain: true },
    { s: 'a-1', label: true, subdomain: true },
    { s: 'a.b', label: false, subdomain: true },
    { s: '-a', label: false, subdomain: false },
    { s: 'A', label: false, subdomain: false },
    { s: 'a'.repeat(63), label: true, subdomain: true },
    { s: 'a'.repeat(64), label: false, subdomain: true },
    { s: 'a'.repeat(253), label: false, subdomain: true },
    { s: 'a'.repeat(254), label: false, subdomain: false },
    { s: '', label: false, subdomain: false },
  ];
  for (const c of names) {
    it(`should ${c.label ? 'accept' : 'refuse'} ${JSON.stringify(c.s.slice(0, 12))}… (${c.s.length}) as a label, ${c.subdomain ? 'accept' : 'refuse'} it as a subdomain`, () => {
      assert.equal(isDns1123Label(c.s), c.label);
      assert.equal(isDns1123Subdomain(c.s), c.subdomain);
      assert.equal(dns1123LabelProblems(c.s).length === 0, c.label);
    });
  }

  it('should list every DNS-1123 label problem', () => {
    assert.deepEqual(dns1123LabelProblems(`${'a'.repeat(63)}-`), ['must be no more than 63 characters', DNS1123_LABEL_MESSAGE]);
  });

  it('should describe each qualified-name problem as kube-apiserver does', () => {
    assert.deepEqual(qualifiedNameProblems('ok'), []);
    assert.deepEqual(qualifiedNameProblems('example.com/ok'), []);
    assert.deepEqual(qualifiedNameProblems('/x'), ['prefix part must be non-empty']);
    assert.deepEqual(qualifiedNameProblems('x/'), ['name part must be non-empty']);
    assert.deepEqual(qualifiedNameProblems(`${'a'.repeat(254)}/x`), ['prefix part must be no more than 253 characters']);
    assert.deepEqual(qualifiedNameProblems('Bad_/x'), [`prefix part ${DNS1123_SUBDOMAIN_MESSAGE}`]);
    assert.match(qualifiedNameProblems('a'.repeat(64))[0] ?? '', /^name part must be no more than 63 characters$/);
    assert.equal(
      qualifiedNameProblems('-a')[0],
      "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    );
    assert.match(qualifiedNameProblems('a/b/c')[0] ?? '', /^a qualified name must consist of .* with an optional DNS subdomain prefix and '\/' \(e\.g\. 'example\.com\/MyName'\)$/);
  });

  it('should describe label value problems', () => {
    assert.deepEqual(labelValueProblems(''), []);
    assert.deepEqual(labelValueProblems('My_value.1'), []);
    assert.deepEqual(labelValueProblems(`${'v'.repeat(64)}`), ['must be no more than 63 characters']);
    assert.equal(labelValueProblems('-x').length, 1);
    assert.equal(labelValueProblems(`-${'v'.repeat(64)}`).length, 2);
  });
});
