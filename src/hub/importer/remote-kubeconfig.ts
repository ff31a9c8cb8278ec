// The kubeconfig of a cluster to import, read from a hub Secret. Anyone who may write that Secret
// chooses what the hub connects to, so a reference to a file (CA, certificate, key or token on the
// hub's own disk) and exec/auth-provider plugins are refused: everything must be inline. Pure.

import { loadKubeconfigString, type ClientConfig } from '../../client/kubeconfig.js';
import { isPlainObject } from '../../util/merge-patch.js';
import { errorMessage } from '../../util/errors.js';
import { parseYaml } from '../../util/yaml.js';

const FILE_FIELDS: Readonly<Record<string, readonly string[]>> = {
  clusters: ['certificate-authority'],
  users: ['client-certificate', 'client-key', 'tokenFile', 'token-file'],
};

export function parseRemoteKubeconfig(text: string): ClientConfig {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (err) {
    throw new Error(`invalid kubeconfig: ${errorMessage(err)}`, { cause: err });
  }
  if (!isPlainObject(doc)) throw new Error('invalid kubeconfig: not a YAML mapping');
  for (const [list, fields] of Object.entries(FILE_FIELDS)) {
    const entries = doc[list];
    if (!Array.isArray(entries)) continue;
    for (const e of entries) {
      const body: unknown = isPlainObject(e) ? e[list === 'clusters' ? 'cluster' : 'user'] : undefined;
      if (!isPlainObject(body)) continue;
      for (const f of fields) {
        if (typeof body[f] === 'string' && body[f] !== '') throw new Error(`kubeconfig ${list}[${JSON.stringify(e['name'])}] refers to a file (${f}); the hub only uses inline data`);
      }
    }
  }
  return loadKubeconfigString(text);
}
