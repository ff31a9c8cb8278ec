// The served OpenAPI documents, encoded once and reused until their input changes. The registry's
// generation moves whenever a CRD is reconciled (status writes included), so each document is
// keyed on a fingerprint of the resources it describes: a new generation costs one serialisation
// of the inputs, and only a group version whose resources really changed is rebuilt, lazily, on
// the first request that needs it. Each encoded document carries its content hash, which is both
// its ETag and the `hash` of its v3 URL.

import { createHash } from 'node:crypto';
import type { ResourceRegistry } from '../registry/resource-registry.js';
import { groupVersionPath } from './names.js';
import { openApiResources } from './registry-resources.js';
import type { OpenApiInfo, OpenApiResource } from './types.js';
import { v2Document } from './v2-document.js';
import { v3DiscoveryDocument, v3GroupVersionDocument } from './v3-document.js';

export interface EncodedDocument {
  body: Buffer;
  /** Upper-case hex SHA-512 of the body, as kube-apiserver computes it. */
  hash: string;
}

interface GroupVersionInput {
  resources: OpenApiResource[];
  /** The resources serialised: equal fingerprints give equal documents. */
  fingerprint: string;
}

interface Snapshot {
  generation: number;
  /** By group version path (`api/v1`, `apis/<group>/<version>`), sorted. */
  groupVersions: Map<string, GroupVersionInput>;
  discovery?: EncodedDocument;
}

interface CachedDocument {
  fingerprint: string;
  doc: EncodedDocument;
}

function encode(doc: unknown): EncodedDocument {
  const body = Buffer.from(JSON.stringify(doc));
  return { body, hash: createHash('sha512').update(body).digest('hex').toUpperCase() };
}

export class OpenApiService {
  readonly #registry: ResourceRegistry;
  readonly #info: OpenApiInfo;
  #snapshot: Snapshot | undefined;
  readonly #v3 = new Map<string, CachedDocument>();
  #v2: CachedDocument | undefined;

  constructor(registry: ResourceRegistry, info: OpenApiInfo) {
    this.#registry = registry;
    this.#info = info;
  }

  #current(): Snapshot {
    const generation = this.#registry.generation;
    if (this.#snapshot?.generation === generation) return this.#snapshot;
    const grouped = new Map<string, OpenApiResource[]>();
    for (const r of openApiResources(this.#registry)) {
      const key = groupVersionPath(r.group, r.version);
      grouped.set(key, [...(grouped.get(key) ?? []), r]);
    }
    const groupVersions = new Map<string, GroupVersionInput>();
    for (const key of [...grouped.keys()].sort()) {
      const resources = grouped.get(key) ?? [];
      groupVersions.set(key, { resources, fingerprint: JSON.stringify(resources) });
    }
    for (const key of this.#v3.keys()) if (!groupVersions.has(key)) this.#v3.delete(key);
    this.#snapshot = { generation, groupVersions };
    return this.#snapshot;
  }

  /** The Swagger 2.0 document (JSON). */
  v2(): EncodedDocument {
    const inputs = [...this.#current().groupVersions.values()];
    const fingerprint = inputs.map((i) => i.fingerprint).join('\n');
    if (this.#v2?.fingerprint !== fingerprint) {
      this.#v2 = { fingerprint, doc: encode(v2Document(inputs.flatMap((i) => i.resources), this.#info)) };
    }
    return this.#v2.doc;
  }

  /** One group version's OpenAPI 3.0 document (JSON); undefined for a group version not served. */
  v3(gvPath: string): EncodedDocument | undefined {
    const input = this.#current().groupVersions.get(gvPath);
    if (!input) return undefined;
    const cached = this.#v3.get(gvPath);
    if (cached?.fingerprint === input.fingerprint) return cached.doc;
    const doc = encode(v3GroupVersionDocument(input.resources, this.#info));
    this.#v3.set(gvPath, { fingerprint: input.fingerprint, doc });
    return doc;
  }

  /** The `/openapi/v3` discovery document (JSON). */
  v3Discovery(): EncodedDocument {
    const s = this.#current();
    if (!s.discovery) {
      const hashes = new Map<string, string>();
      for (const gvPath of s.groupVersions.keys()) hashes.set(gvPath, (this.v3(gvPath) as EncodedDocument).hash);
      s.discovery = encode(v3DiscoveryDocument(hashes));
    }
    return s.discovery;
  }
}
