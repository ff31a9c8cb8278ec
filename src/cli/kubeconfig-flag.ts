// Where a client command finds its kubeconfig: --kubeconfig, then $KUBECONFIG, then ~/.kube/config.
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { CliUsageError } from './usage-error.js';

export function resolveKubeconfigPath(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  const candidates = [flag, env.KUBECONFIG?.split(':')[0], join(homedir(), '.kube', 'config')];
  const path = candidates.find((p): p is string => typeof p === 'string' && p !== '');
  if (flag) {
    if (!existsSync(flag)) throw new CliUsageError(`kubeconfig ${flag} does not exist`);
    return flag;
  }
  if (!path || !existsSync(path)) {
    throw new CliUsageError('no kubeconfig: pass --kubeconfig FILE (e.g. DATA_DIR/admin.kubeconfig of `ocm-ts hub`) or set KUBECONFIG');
  }
  return path;
}
