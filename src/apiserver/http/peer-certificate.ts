// The client certificate of a TLS connection, read once per connection.
//
// The server reads it as soon as the handshake completes (not at the first request): for a client
// certificate whose signature does not verify, OpenSSL leaves the verification error queued after
// the handshake (TLS 1.2), and the connection's next read then fails on that stale error, which
// resets the connection before any request is answered. Reading the certificate in the secure
// event clears the queue, so the request goes on and is refused with 401 by the authenticator.

import type { TLSSocket } from 'node:tls';
import type { AuthenticationRequest } from '../pipeline.js';

export type PeerChain = Pick<AuthenticationRequest, 'clientCertificateDer'>;

const kPeerChain = Symbol('ocm-ts.peerChain');
type WithChain = TLSSocket & { [kPeerChain]?: PeerChain };

/** The peer chain, cached on the socket: it cannot change during a connection (no renegotiation). */
export function peerChainOf(socket: TLSSocket): PeerChain {
  const s = socket as WithChain;
  let chain = s[kPeerChain];
  if (chain === undefined) {
    chain = readPeerChain(socket);
    s[kPeerChain] = chain;
  }
  return chain;
}

function readPeerChain(socket: TLSSocket): PeerChain {
  // The native certificate, not getPeerCertificate(): that one converts the whole chain to plain
  // objects with three fingerprints each, about a millisecond a connection that a restarted hub pays
  // for every cluster at once. Only the leaf is used (the CA check is the authenticator's).
  if (typeof socket.getPeerX509Certificate !== 'function') return {};
  const peer = socket.getPeerX509Certificate();
  return peer ? { clientCertificateDer: peer.raw } : {};
}
