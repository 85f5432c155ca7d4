/**
 * The strategic-merge metadata of the built-in kinds (the `patchStrategy`/`patchMergeKey` tags
 * of their Go types): which lists merge, and by which key. Lists not named here are replaced
 * by a patch, maps merge.
 */
export interface Schema {
  [field: string]: Field;
}

/** One field: a list that merges (by `mergeKey`, or as a set of primitives), or a nested map. */
export interface Field {
  mergeKey?: string;
  /** A list of primitives merged as a set (`finalizers`). */
  primitiveMerge?: boolean;
  /** The schema of the map, or of the items of the list. */
  of?: Schema;
}

const byKey = (mergeKey: string, of?: Schema): Field => ({ mergeKey, of });

const CONTAINER: Schema = {
  ports: byKey('containerPort'),
  env: byKey('name'),
  volumeMounts: byKey('mountPath'),
  volumeDevices: byKey('devicePath'),
};

const POD_SPEC: Schema = {
  containers: byKey('name', CONTAINER),
  initContainers: byKey('name', CONTAINER),
  ephemeralContainers: byKey('name', CONTAINER),
  volumes: byKey('name'),
  imagePullSecrets: byKey('name'),
  hostAliases: byKey('ip'),
  topologySpreadConstraints: byKey('topologyKey'),
  resourceClaims: byKey('name'),
  schedulingGates: byKey('name'),
};

const METADATA: Field = {
  of: { finalizers: { primitiveMerge: true }, ownerReferences: byKey('uid') },
};

const TEMPLATE: Field = { of: { metadata: METADATA, spec: { of: POD_SPEC } } };
const CONDITIONS: Field = { of: { conditions: byKey('type') } };

const WORKLOAD: Schema = {
  metadata: METADATA,
  spec: { of: { template: TEMPLATE } },
  status: CONDITIONS,
};

/** Schemas by kind; every other built-in kind merges maps and replaces lists. */
const SCHEMAS: Record<string, Schema> = {
  Pod: {
    metadata: METADATA,
    spec: { of: POD_SPEC },
    status: { of: { conditions: byKey('type'), podIPs: byKey('ip'), hostIPs: byKey('ip') } },
  },
  Deployment: WORKLOAD,
  ReplicaSet: WORKLOAD,
  StatefulSet: WORKLOAD,
  DaemonSet: WORKLOAD,
  Job: WORKLOAD,
  CronJob: {
    metadata: METADATA,
    spec: { of: { jobTemplate: { of: { spec: { of: { template: TEMPLATE } } } } } },
  },
  Service: { metadata: METADATA, spec: { of: { ports: byKey('port') } } },
  Node: {
    metadata: METADATA,
    status: { of: { conditions: byKey('type'), addresses: byKey('type') } },
  },
};

/** The strategic-merge schema of a built-in kind. */
export function schemaFor(kind: string): Schema {
  return SCHEMAS[kind] ?? { metadata: METADATA };
}
