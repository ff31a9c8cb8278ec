import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { chmod, lstat, mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensurePrivateDirSync, ensurePrivateFileSync, tightenDataDir, tightenTree, writePrivateFile } from './private-files.js';

const mode = async (p: string): Promise<number> => (await lstat(p)).mode & 0o777;

describe('private files', () => {
  let root: string;
  let umask: number;
  before(async () => {
    // A permissive umask, so that any mode left to it would show.
    umask = process.umask(0o022);
    root = await mkdtemp(join(tmpdir(), 'ocm-ts-private-'));
  });
  after(async () => {
    process.umask(umask);
    await rm(root, { recursive: true, force: true });
  });

  it('should tighten a tree: directories 0700, files 0600, links and their targets untouched', async () => {
    const dir = join(root, 'tree');
    await mkdir(join(dir, 'sub', 'deeper'), { recursive: true, mode: 0o755 });
    await writeFile(join(dir, 'a.key'), 'a', { mode: 0o644 });
    await writeFile(join(dir, 'sub', 'deeper', 'b.crt'), 'b', { mode: 0o666 });
    const outside = join(root, 'outside.txt');
    await writeFile(outside, 'x', { mode: 0o644 });
    await symlink(outside, join(dir, 'link'));
    await tightenTree(dir);
    assert.equal(await mode(dir), 0o700);
    assert.equal(await mode(join(dir, 'sub')), 0o700);
    assert.equal(await mode(join(dir, 'sub', 'deeper')), 0o700);
    assert.equal(await mode(join(dir, 'a.key')), 0o600);
    assert.equal(await mode(join(dir, 'sub', 'deeper', 'b.crt')), 0o600);
    assert.equal(await mode(outside), 0o644, 'a symlink is not followed');
    await tightenTree(join(root, 'missing'));
  });

  it('should create or tighten a data dir and only the entries it owns', async () => {
    const dir = join(root, 'data');
    await tightenDataDir(dir, () => true);
    assert.equal(await mode(dir), 0o700);
    await chmod(dir, 0o755);
    await writeFile(join(dir, 'state.db'), '', { mode: 0o644 });
    await writeFile(join(dir, 'notes.sh'), '', { mode: 0o755 });
    await tightenDataDir(dir, (name) => name.startsWith('state.db'));
    assert.equal(await mode(dir), 0o700);
    assert.equal(await mode(join(dir, 'state.db')), 0o600);
    assert.equal(await mode(join(dir, 'notes.sh')), 0o755, 'not ours: left alone');
  });

  it('should write a private file atomically, replacing a readable one', async () => {
    const file = join(root, 'secret.kubeconfig');
    await writeFile(file, 'old', { mode: 0o644 });
    await writeFile(`${file}.tmp-${process.pid}`, 'stale', { mode: 0o644 });
    await writePrivateFile(file, 'new');
    assert.equal(await readFile(file, 'utf8'), 'new');
    assert.equal(await mode(file), 0o600);
  });

  it('should make a dir and a file private synchronously', async () => {
    const dir = join(root, 'sync');
    await mkdir(dir, { mode: 0o755 });
    await chmod(dir, 0o755);
    ensurePrivateDirSync(dir);
    assert.equal((await stat(dir)).mode & 0o777, 0o700);
    ensurePrivateDirSync(join(dir, 'new', 'nested'));
    assert.equal(await mode(join(dir, 'new', 'nested')), 0o700);
    await writeFile(join(dir, 'f'), '', { mode: 0o644 });
    ensurePrivateFileSync(join(dir, 'f'));
    assert.equal(await mode(join(dir, 'f')), 0o600);
    ensurePrivateFileSync(join(dir, 'missing'));
  });
});
