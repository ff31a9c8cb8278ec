// CPU time and resident memory of a process, read from Linux's /proc (the hub runs in a child
// process, so its cost is measured apart from the simulator's). Parsing is pure; reading returns
// undefined where /proc is absent or the process is gone.

import { readFileSync } from 'node:fs';

/** Linux's USER_HZ: the unit of utime and stime in /proc/<pid>/stat (100 on every common kernel). */
const TICKS_PER_SECOND = 100;

export interface ProcSample {
  /** user + system CPU time so far, in seconds. */
  cpuSeconds: number;
  /** Resident set size in bytes. */
  rssBytes: number;
}

/** utime + stime (fields 14 and 15) of a /proc/<pid>/stat line, in seconds. */
export function parseStatCpuSeconds(stat: string): number {
  // The command name (field 2) is in parentheses and may hold spaces: count fields after its last ')'.
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // rest[0] is field 3 (state); utime is field 14, stime field 15.
  const utime = Number(rest[11]);
  const stime = Number(rest[12]);
  if (!Number.isFinite(utime) || !Number.isFinite(stime)) throw new Error(`unexpected /proc stat line: ${stat.slice(0, 80)}`);
  return (utime + stime) / TICKS_PER_SECOND;
}

/** VmRSS of a /proc/<pid>/status text, in bytes. */
export function parseStatusRssBytes(status: string): number {
  const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
  if (!m) throw new Error('no VmRSS line in /proc status');
  return Number(m[1]) * 1024;
}

export function readProcSample(pid: number): ProcSample | undefined {
  try {
    return {
      cpuSeconds: parseStatCpuSeconds(readFileSync(`/proc/${pid}/stat`, 'utf8')),
      rssBytes: parseStatusRssBytes(readFileSync(`/proc/${pid}/status`, 'utf8')),
    };
  } catch {
    return undefined;
  }
}

/** Cores used between two samples taken `elapsedMs` apart. */
export function coresBetween(a: ProcSample, b: ProcSample, elapsedMs: number): number {
  return elapsedMs > 0 ? Math.max(0, b.cpuSeconds - a.cpuSeconds) / (elapsedMs / 1000) : 0;
}

/** Established TCP connections whose local port is `port`, from /proc/net/tcp and tcp6 texts. */
export function countEstablished(tables: readonly string[], port: number): number {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  let n = 0;
  for (const table of tables) {
    for (const line of table.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      // f[1] = local address:port, f[3] = state (01 = ESTABLISHED).
      if (f.length > 3 && f[3] === '01' && f[1]!.endsWith(`:${hexPort}`)) n++;
    }
  }
  return n;
}

/** Established connections to a local server port (undefined without /proc). */
export function readEstablished(port: number): number | undefined {
  const tables: string[] = [];
  for (const f of ['/proc/net/tcp', '/proc/net/tcp6']) {
    try {
      tables.push(readFileSync(f, 'utf8'));
    } catch {
      // tcp6 may be absent
    }
  }
  return tables.length > 0 ? countEstablished(tables, port) : undefined;
}
