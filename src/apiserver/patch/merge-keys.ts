// Per-kind field metadata for strategic merge patch and server-side apply on built-in kinds (the
// patchStrategy/patchMergeKey tags of the Go types): which lists merge by a key, which primitive
// lists merge as sets. Everything not listed is atomic (a list is replaced whole) or a plain map
// (merged key by key).

/** Metadata of one field; `fields` describes the members of an object value. */
export interface FieldMeta {
  fields?: Record<string, FieldMeta>;
  /** A list of objects merged element-wise by this key (patchMergeKey). */
  mergeKey?: string;
  /** A list of primitives merged as a set (patchStrategy merge on a []string). */
  primitiveSet?: boolean;
  /** Metadata of each element of a keyed list. */
  items?: FieldMeta;
  /** `$retainKeys` is honoured for this object (patchStrategy retainKeys). Tolerated everywhere anyway. */
  retainKeys?: boolean;
}

const CONDITIONS: FieldMeta = { mergeKey: 'type' };

const CONTAINER: FieldMeta = {
  fields: {
    env: { mergeKey: 'name' },
    ports: { mergeKey: 'containerPort' },
    volumeMounts: { mergeKey: 'mountPath' },
    volumeDevices: { mergeKey: 'devicePath' },
  },
};

const OBJECT_META: FieldMeta = {
  fields: {
    ownerReferences: { mergeKey: 'uid' },
    finalizers: { primitiveSet: true },
  },
};

/** Kinds by `group/Kind` ('' group for core). Each entry describes the whole object. */
const KINDS: Record<string, FieldMeta> = {
  '/ServiceAccount': {
    // imagePullSecrets has no patch strategy on a ServiceAccount (unlike on a Pod): it is replaced.
    fields: { secrets: { mergeKey: 'name' } },
  },
  '/Node': {
    fields: {
      spec: { fields: { podCIDRs: { primitiveSet: true } } },
      status: { fields: { conditions: CONDITIONS, addresses: { mergeKey: 'type' } } },
    },
  },
  '/Namespace': {
    fields: { status: { fields: { conditions: CONDITIONS } } },
  },
  '/Pod': {
    fields: {
      spec: {
        fields: {
          containers: { mergeKey: 'name', items: CONTAINER },
          initContainers: { mergeKey: 'name', items: CONTAINER },
          ephemeralContainers: { mergeKey: 'name', items: CONTAINER },
          volumes: { mergeKey: 'name', retainKeys: true },
          imagePullSecrets: { mergeKey: 'name' },
        },
      },
      status: { fields: { conditions: CONDITIONS } },
    },
  },
};

/**
 * Field metadata of a built-in kind, with `metadata.ownerReferences` (key uid) and
 * `metadata.finalizers` (set) added for every kind. Unknown kinds get only the metadata part.
 */
export function builtinFieldMeta(group: string, kind: string): FieldMeta {
  const own = KINDS[`${group}/${kind}`] ?? {};
  return { ...own, fields: { ...own.fields, metadata: OBJECT_META } };
}
