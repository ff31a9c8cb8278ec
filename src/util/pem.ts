// PEM framing (RFC 7468) without any X.509 library, so that light components (the agent) can
// read and write PEM without loading one.

export interface PemBlock {
  type: string;
  der: Buffer;
}

/** Splits text into its PEM blocks (blocks with RFC 1421 headers are skipped). */
export function splitPemBlocks(text: string): PemBlock[] {
  const out: PemBlock[] = [];
  const re = /-----BEGIN ([A-Z0-9 ]+)-----\r?\n([\s\S]*?)-----END \1-----/g;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const body = m[2]!;
    if (body.includes(':')) continue;
    const b64 = body.replace(/\s+/g, '');
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(b64)) continue;
    out.push({ type: m[1]!, der: Buffer.from(b64, 'base64') });
  }
  return out;
}

export function toPem(type: string, der: Buffer | Uint8Array): string {
  const b64 = Buffer.from(der).toString('base64');
  const lines = b64.match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${type}-----\n${lines.join('\n')}\n-----END ${type}-----\n`;
}
