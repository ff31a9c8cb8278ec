// Reading DER (the ASN.1 encoding of certificates and CSRs) without any X.509 library, so that light
// components (the agent) and the server's X.509 helpers share one walker: tag-length-value
// elements with definite lengths, the children of a constructed element, and object identifiers.

export interface DerElement {
  tag: number;
  /** Offset of the tag byte. */
  start: number;
  /** Offset of the first content byte. */
  contentStart: number;
  /** Offset just past the content. */
  end: number;
}

/** The element at `offset`, which must end by `limit`; throws on truncated or unsupported lengths. */
export function readDer(buf: Buffer, offset: number, limit: number = buf.length): DerElement {
  if (offset + 2 > limit) throw new Error('truncated DER');
  const tag = buf[offset]!;
  let len = buf[offset + 1]!;
  let p = offset + 2;
  if (len & 0x80) {
    const n = len & 0x7f;
    if (n === 0 || n > 4 || p + n > limit) throw new Error('bad DER length');
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + buf[p + i]!;
    p += n;
  }
  if (p + len > limit) throw new Error('truncated DER');
  return { tag, start: offset, contentStart: p, end: p + len };
}

/** The elements inside a constructed element (SEQUENCE, SET, context tags). */
export function derChildren(buf: Buffer, parent: DerElement): DerElement[] {
  const out: DerElement[] = [];
  for (let p = parent.contentStart; p < parent.end; ) {
    const e = readDer(buf, p, parent.end);
    out.push(e);
    p = e.end;
  }
  return out;
}

/** Dotted form of an OBJECT IDENTIFIER's content bytes; throws when empty. */
export function decodeOid(b: Buffer): string {
  if (b.length === 0) throw new Error('empty object identifier');
  const parts: number[] = [Math.floor(b[0]! / 40), b[0]! % 40];
  let v = 0;
  for (let i = 1; i < b.length; i++) {
    v = v * 128 + (b[i]! & 0x7f);
    if ((b[i]! & 0x80) === 0) {
      parts.push(v);
      v = 0;
    }
  }
  return parts.join('.');
}
