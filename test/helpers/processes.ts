// The processes a test started indirectly (a CLI's children), read from /proc, and whether one lives.

import { readdirSync, readFileSync } from 'node:fs';

/** The processes whose parent is `pid`, with their command lines. */
export function childrenOf(pid: number): Array<{ pid: number; args: string }> {
  const out: Array<{ pid: number; args: string }> = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) out.push({ pid: Number(d), args: readFileSync(`/proc/${d}/cmdline`, 'utf8').split('\0').join(' ') });
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
