// The served OpenAPI documents, encoded once per registry generation: the registry's generation
// changes whenever a CRD is established, changed or removed, and the documents are rebuilt lazily,
// on the first request after such a change. Each encoded document carries its content hash, which
// is both its ETag and the `hash` of its v3 URL.

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

interface Snapshot {
  generation: number;
  /** Resources by group version path (`api/v1`, `apis/<group>/<version>`). */
  byGroupVersion: Map<string, OpenApiResource[]>;
  all: OpenApiResource[];
  v2?: EncodedDocument;
  v3: Map<string, EncodedDocument>;
  discovery?: EncodedDocument;
}

function encode(doc: unknown): EncodedDocument {
  const body = Buffer.from(JSON.stringify(doc));
  return { body, hash: createHash('sha512').update(body).digest('hex').toUpperCase() };
}

export class OpenApiService {
  readonly #registry: ResourceRegistry;
  readonly #info: OpenApiInfo;
  #snapshot: Snapshot | undefined;

  constructor(registry: ResourceRegistry, info: OpenApiInfo) {
    this.#registry = registry;
    this.#info = info;
  }

  #current(): Snapshot {
    const generation = this.#registry.generation;
    if (this.#snapshot?.generation === generation) return this.#snapshot;
    const all = openApiResources(this.#registry);
    const byGroupVersion = new Map<string, OpenApiResource[]>();
    for (const r of all) {
      const key = groupVersionPath(r.group, r.version);
      byGroupVersion.set(key, [...(byGroupVersion.get(key) ?? []), r]);
    }
    this.#snapshot = { generation, all, byGroupVersion, v3: new Map() };
    return this.#snapshot;
  }

  /** The Swagger 2.0 document (JSON). */
  v2(): EncodedDocument {
    const s = this.#current();
    s.v2 ??= encode(v2Document(s.all, this.#info));
    return s.v2;
  }

  /** One group version's OpenAPI 3.0 document (JSON); undefined for a group version not served. */
  v3(gvPath: string): EncodedDocument | undefined {
    const s = this.#current();
    const cached = s.v3.get(gvPath);
    if (cached) return cached;
    const resources = s.byGroupVersion.get(gvPath);
    if (!resources) return undefined;
    const doc = encode(v3GroupVersionDocument(resources, this.#info));
    s.v3.set(gvPath, doc);
    return doc;
  }

  /** The `/openapi/v3` discovery document (JSON). */
  v3Discovery(): EncodedDocument {
    const s = this.#current();
    if (!s.discovery) {
      const hashes = new Map<string, string>();
      for (const gvPath of s.byGroupVersion.keys()) hashes.set(gvPath, (this.v3(gvPath) as EncodedDocument).hash);
      s.discovery = encode(v3DiscoveryDocument(hashes));
    }
    return s.discovery;
  }
}
