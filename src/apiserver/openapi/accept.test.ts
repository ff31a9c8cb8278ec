import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { pickMediaType } from './accept.js';

const JSON_TYPE = 'application/json';
const PB = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';

describe('pickMediaType', () => {
  it('should pick by the client preference among the offered types', () => {
    const cases: { name: string; accept: string | undefined; expected: string | undefined }[] = [
      { name: 'no header', accept: undefined, expected: JSON_TYPE },
      { name: 'empty header', accept: ' ', expected: JSON_TYPE },
      { name: 'protobuf (kubectl)', accept: PB, expected: PB },
      { name: 'json then anything', accept: 'application/json, */*', expected: JSON_TYPE },
      { name: 'wildcard', accept: '*/*', expected: JSON_TYPE },
      { name: 'subtype wildcard', accept: 'application/*', expected: JSON_TYPE },
      { name: 'weights', accept: `application/json;q=0.5, ${PB}`, expected: PB },
      { name: 'refused with q=0', accept: `${PB};q=0, text/plain`, expected: undefined },
      { name: 'nothing offered', accept: 'text/html', expected: undefined },
      { name: 'case-insensitive', accept: 'Application/JSON', expected: JSON_TYPE },
    ];
    for (const c of cases) assert.equal(pickMediaType(c.accept, [JSON_TYPE, PB]), c.expected, c.name);
  });
});
