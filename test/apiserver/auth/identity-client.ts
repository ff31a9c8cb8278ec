// HTTPS requests as a chosen identity (client certificate, bearer token, or nothing) against a test
// server, returning status and parsed body. Used by the auth integration tests.

import { Agent, request } from 'node:https';

export type Identity = { certPem: string; keyPem: string } | { token: string } | { anonymous: true };

export interface IdentityResponse {
  status: number;
  json: { kind?: string; message?: string; reason?: string; [k: string]: unknown } | undefined;
  text: string;
}

export interface IdentityClient {
  request(method: string, path: string, body?: unknown, contentType?: string): Promise<IdentityResponse>;
  close(): void;
}

export function identityClient(serverUrl: string, caPem: string, id: Identity): IdentityClient {
  const base = new URL(serverUrl);
  const agent = new Agent({ keepAlive: true, ca: caPem, ...('certPem' in id ? { cert: id.certPem, key: id.keyPem } : {}) });
  return {
    request(method, path, body, contentType = 'application/json') {
      const payload = body === undefined ? undefined : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
      const headers: Record<string, string> = { accept: 'application/json' };
      if ('token' in id) headers.authorization = `Bearer ${id.token}`;
      if (payload) {
        headers['content-type'] = contentType;
        headers['content-length'] = String(payload.length);
      }
      return new Promise((resolve, reject) => {
        const req = request({ host: base.hostname, port: base.port, method, path, agent, headers }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let json: IdentityResponse['json'];
            try {
              json = text ? (JSON.parse(text) as IdentityResponse['json']) : undefined;
            } catch {
              json = undefined;
            }
            resolve({ status: res.statusCode ?? 0, json, text });
          });
          res.on('error', reject);
        });
        req.on('error', reject);
        if (payload) req.write(payload);
        req.end();
      });
    },
    close: () => agent.destroy(),
  };
}
