// Where kubectl is, if anywhere: kubectl is optional on our machines, so its tests skip without it.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

export async function findKubectl(): Promise<string | undefined> {
  try {
    const { stdout } = await run('sh', ['-c', 'command -v kubectl']);
    return stdout.trim() || undefined;
  } catch {
    return undefined;
  }
}
