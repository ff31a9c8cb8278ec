import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../api/meta.js';
import type { ServedResource } from '../registry/types.js';
import { createEncodeCache, watchEncoder, type OutputContext } from './output.js';

const served = {
  def: { group: 'example.io', resource: 'widgets', kind: 'Widget' },
  // each served version gets its own wire form, so a line of one version must never serve another
  toVersion: (obj: KubeObject, version: string): KubeObject => ({ ...obj, apiVersion: `example.io/${version}`, kind: 'Widget' }),
} as unknown as ServedResource;

function context(version: string): OutputContext {
  return { served, version, format: { type: 'json' }, includeObject: 'Object', now: 0, pretty: false };
}

const widget = (name: string): KubeObject => ({ apiVersion: 'example.io/v1', kind: 'Widget', metadata: { name, resourceVersion: '7' } });

const decode = (line: Buffer): { type: string; object: KubeObject } => JSON.parse(line.toString('utf8')) as { type: string; object: KubeObject };

describe('watch encoder cache', () => {
  it('hands every watcher of an event the one encoded line, framed as a chunk too', () => {
    const cache = createEncodeCache();
    const a = watchEncoder(context('v1'), cache);
    const b = watchEncoder(context('v1'), cache);
    const obj = widget('w1');
    const first = a.line('ADDED', obj, true);
    assert.equal(b.line('ADDED', obj, false), first);
    assert.deepEqual(decode(first.line), { type: 'ADDED', object: { ...obj, apiVersion: 'example.io/v1' } });
    assert.equal(first.chunk.toString('latin1'), `${first.line.length.toString(16)}\r\n${first.line.toString('latin1')}\r\n`);
  });

  it('keeps lines apart by version, event type and object, whatever was asked for last', () => {
    const cache = createEncodeCache();
    const v1 = watchEncoder(context('v1'), cache);
    const v2 = watchEncoder(context('v2'), cache);
    const obj = widget('w1');
    const other = widget('w2');
    const added = v1.line('ADDED', obj, true);
    assert.equal(decode(v2.line('ADDED', obj, true).line).object.apiVersion, 'example.io/v2');
    assert.equal(decode(v1.line('MODIFIED', obj, true).line).type, 'MODIFIED');
    assert.equal(decode(v1.line('ADDED', other, true).line).object.metadata.name, 'w2');
    // back to the first line: served from the cache, not re-encoded
    assert.equal(v1.line('ADDED', obj, false), added);
    assert.equal(decode(v2.line('ADDED', obj, false).line).object.apiVersion, 'example.io/v2');
  });
});
