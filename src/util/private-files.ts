// Files only their owner may read: data directories 0700, everything in them 0600. They hold
// private keys, kubeconfigs and the database (whose WAL carries every secret recently written), so
// modes are set explicitly rather than left to the process umask, and a directory written by an
// older version (0755, 0644) is tightened again on every start.

import { chmodSync, lstatSync, mkdirSync, statSync } from 'node:fs';
import { chmod, lstat, mkdir, readdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { errorMessage } from './errors.js';

const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

function isMissing(err: unknown): boolean {
  return (err as NodeJS.ErrnoException).code === 'ENOENT';
}

function failure(path: string, err: unknown): Error {
  return new Error(`cannot make ${path} private: ${errorMessage(err)}`, { cause: err });
}

/**
 * Makes `path` private if it exists: a regular file 0600, a directory 0700 together with
 * everything below it. Symbolic links are left alone (chmod would follow them out of the tree).
 */
export async function tightenTree(path: string): Promise<void> {
  let st;
  try {
    st = await lstat(path);
  } catch (err) {
    if (isMissing(err)) return;
    throw failure(path, err);
  }
  const want = st.isDirectory() ? PRIVATE_DIR_MODE : st.isFile() ? PRIVATE_FILE_MODE : undefined;
  if (want === undefined) return;
  try {
    if ((st.mode & 0o777) !== want) await chmod(path, want);
  } catch (err) {
    if (isMissing(err)) return;
    throw failure(path, err);
  }
  if (!st.isDirectory()) return;
  for (const name of await readdir(path)) await tightenTree(join(path, name));
}

/**
 * Creates `dir` if needed and makes it 0700, then tightens the entries `owned` selects (ours:
 * the caller names what it writes, so pointing a data directory at a populated folder does not
 * rewrite the modes of unrelated files).
 */
export async function tightenDataDir(dir: string, owned: (name: string) => boolean): Promise<void> {
  try {
    await mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
    await chmod(dir, PRIVATE_DIR_MODE);
  } catch (err) {
    throw failure(dir, err);
  }
  for (const name of await readdir(dir)) {
    if (owned(name)) await tightenTree(join(dir, name));
  }
}

/** Writes a file atomically with mode 0600: a 0600 temporary file renamed over the target. */
export async function writePrivateFile(path: string, content: string | Uint8Array): Promise<void> {
  const tmp = `${path}.tmp-${process.pid}`;
  await writeFile(tmp, content, { mode: PRIVATE_FILE_MODE });
  // The mode above applies only when the file is created; a stale temporary file keeps its own.
  await chmod(tmp, PRIVATE_FILE_MODE);
  await rename(tmp, path);
}

/** Synchronous: creates `dir` if needed and makes it (not its contents) 0700. */
export function ensurePrivateDirSync(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  if ((statSync(dir).mode & 0o777) !== PRIVATE_DIR_MODE) chmodSync(dir, PRIVATE_DIR_MODE);
}

/** Synchronous: makes an existing regular file 0600; a missing file is not an error. */
export function ensurePrivateFileSync(path: string): void {
  let mode: number;
  try {
    const st = lstatSync(path);
    if (!st.isFile()) return;
    mode = st.mode & 0o777;
  } catch (err) {
    if (isMissing(err)) return;
    throw err;
  }
  if (mode !== PRIVATE_FILE_MODE) chmodSync(path, PRIVATE_FILE_MODE);
}
