// The hub kubeconfig derived from the bootstrap kubeconfig: same cluster entry
// (server, CA path and data, proxy URL), context `default-context` in namespace `configuration`,
// user `default-auth` pointing at files beside the kubeconfig. Rendered by the client's deterministic
// writer because change detection compares the bytes.

import { names } from '../../api/constants.js';
import { renderKubeconfig } from '../../client/kubeconfig-writer.js';
import type { RawCluster } from './raw-kubeconfig.js';

export type HubKubeconfigUser = { kind: 'clientCertificate' } | { kind: 'tokenFile' };

/** Kubeconfig YAML bytes for the hub, built from the bootstrap kubeconfig's current cluster. */
export function buildHubKubeconfig(bootstrap: RawCluster, user: HubKubeconfigUser = { kind: 'clientCertificate' }): Buffer {
  const text = renderKubeconfig({
    clusterName: bootstrap.name,
    server: bootstrap.server,
    ...(bootstrap.certificateAuthority !== '' ? { certificateAuthority: bootstrap.certificateAuthority } : {}),
    ...(bootstrap.certificateAuthorityData !== '' ? { certificateAuthorityData: bootstrap.certificateAuthorityData } : {}),
    ...(bootstrap.proxyUrl !== '' ? { proxyUrl: bootstrap.proxyUrl } : {}),
    user: user.kind === 'clientCertificate' ? { clientCertificate: 'tls.crt', clientKey: 'tls.key' } : { tokenFile: 'token' },
    contextName: names.kubeconfigContext,
    userName: names.kubeconfigUser,
    namespace: names.kubeconfigNamespace,
  });
  return Buffer.from(text, 'utf8');
}
