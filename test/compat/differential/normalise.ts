// What may legitimately differ between two conformant servers is replaced by a placeholder before
// comparing: identities the server generates (uids, resourceVersions, generated names, continue
// tokens), clocks (timestamps), bookkeeping that is not part of the check (managedFields, selfLink),
// and issued certificates. Everything else must agree.

const TIME_KEYS = new Set(['creationTimestamp', 'deletionTimestamp', 'lastTransitionTime', 'lastUpdateTime', 'firstTimestamp', 'lastTimestamp', 'eventTime', 'lastHeartbeatTime']);
const DROP_KEYS = new Set(['managedFields', 'selfLink']);
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Free text that quotes server-generated values (uids, resourceVersions) loses them. */
export function normaliseText(s: string): string {
  return s
    .replace(UUID, '<uid>')
    // Certificate fingerprints of the admin (each server has its own PKI); the case is compared.
    .replace(/X509SHA256=[0-9a-f]{64}/g, 'X509SHA256=<fingerprint>')
    .replace(/too old resource version: \d+ \(\d+\)/g, 'too old resource version: <rv> (<rv>)')
    .replace(/ResourceVersion: \d+/gi, 'ResourceVersion: <rv>')
    .replace(/the ResourceVersion in record \(\d+\)/g, 'the ResourceVersion in record (<rv>)')
    .replace(/resourceVersion(=|": ?")\d+/g, 'resourceVersion$1<rv>');
}

function placeholder(v: unknown, text: string): unknown {
  return v === undefined || v === null || v === '' ? v : text;
}

/** managedFields entries with their times as placeholders (the rest must agree). */
function normaliseManagedFields(v: unknown): unknown {
  if (!Array.isArray(v)) return v;
  return v.map((e) => (isRecord(e) ? normaliseValue({ ...e, ...(typeof e.time === 'string' ? { time: '<time>' } : {}) }, undefined) : e));
}

let keepManagedFields = false;

function normaliseObject(o: Record<string, unknown>, generateName: string | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const gen = typeof o.generateName === 'string' ? o.generateName : generateName;
  for (const key of Object.keys(o).sort()) {
    const v = o[key];
    if (key === 'managedFields' && keepManagedFields) {
      out[key] = normaliseManagedFields(v);
      continue;
    }
    if (DROP_KEYS.has(key)) continue;
    // kube-apiserver lists apply conflicts in its map's order, which varies from run to run.
    if (key === 'causes' && Array.isArray(v) && v.every((c) => isRecord(c) && c.reason === 'FieldManagerConflict')) {
      out[key] = (normaliseValue(v, undefined) as unknown[]).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
      continue;
    }
    // An empty details object says nothing more than no details.
    if (key === 'details' && isRecord(v) && Object.keys(v).length === 0) continue;
    if (key === 'uid' && typeof v === 'string') out[key] = placeholder(v, '<uid>');
    else if ((key === 'resourceVersion' || key === 'continue') && typeof v === 'string') out[key] = placeholder(v, `<${key}>`);
    else if (TIME_KEYS.has(key) && typeof v === 'string') out[key] = '<time>';
    else if (key === 'certificate' && typeof v === 'string') out[key] = placeholder(v, '<certificate>');
    else if (key === 'name' && typeof v === 'string' && gen && v.startsWith(gen) && v.length > gen.length) out[key] = `${gen}<generated>`;
    else if (typeof v === 'string' && (key === 'message' || v.startsWith('X509SHA256='))) out[key] = normaliseText(v);
    else out[key] = normaliseValue(v, undefined);
  }
  return out;
}

function normaliseValue(v: unknown, generateName: string | undefined): unknown {
  if (Array.isArray(v)) return v.map((x) => normaliseValue(x, undefined));
  if (typeof v === 'string' && v.startsWith('X509SHA256=')) return normaliseText(v);
  if (isRecord(v)) {
    const meta = v.metadata;
    const gen = isRecord(meta) && typeof meta.generateName === 'string' ? meta.generateName : generateName;
    if (isRecord(meta)) return normaliseObject({ ...v, metadata: normaliseObject(meta, gen) }, undefined);
    return normaliseObject(v, generateName);
  }
  return v;
}

/** The body with server-generated values as placeholders; managedFields are dropped unless asked for. */
export function normaliseBody(v: unknown, opts: { managedFields?: boolean } = {}): unknown {
  keepManagedFields = opts.managedFields === true;
  try {
    return normaliseValue(v, undefined);
  } finally {
    keepManagedFields = false;
  }
}

function show(v: unknown): string {
  if (v === undefined) return '(absent)';
  const s = JSON.stringify(v);
  return s.length > 300 ? `${s.slice(0, 300)}…` : s;
}

/** Paths where two JSON values differ, one line each: `path: kube=<v> embedded=<v>`. */
export function diffValues(kube: unknown, embedded: unknown, path = '$'): string[] {
  if (Array.isArray(kube) && Array.isArray(embedded)) {
    const out: string[] = [];
    for (let i = 0; i < Math.max(kube.length, embedded.length); i++) out.push(...diffValues(kube[i], embedded[i], `${path}[${i}]`));
    return out;
  }
  if (isRecord(kube) && isRecord(embedded)) {
    const keys = [...new Set([...Object.keys(kube), ...Object.keys(embedded)])].sort();
    return keys.flatMap((k) => diffValues(kube[k], embedded[k], `${path}.${k}`));
  }
  if (JSON.stringify(kube) === JSON.stringify(embedded)) return [];
  return [`${path}: kube=${show(kube)} embedded=${show(embedded)}`];
}
