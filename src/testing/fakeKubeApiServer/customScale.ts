import type { ScaleSubresource } from '../../objects/ResourceType.js';
import { jsonPathValue } from './columns.js';
import type { Entry } from './ObjectStore.js';

/** An autoscaling/v1 Scale, as the scale subresource answers. */
export interface Scale {
  kind: 'Scale';
  apiVersion: 'autoscaling/v1';
  metadata: Record<string, unknown>;
  spec: { replicas?: number };
  status: { replicas: number; selector?: string };
}

/**
 * The Scale of a custom resource, read through its CRD's paths as kube-apiserver does: a missing
 * replicas path reads 0, a missing selector path an empty selector.
 */
export function customScale(entry: Entry, paths: ScaleSubresource): Scale {
  const m = entry.obj.metadata ?? {};
  const replicas = (path: string): number => {
    const value = jsonPathValue(entry.obj, path);
    return typeof value === 'number' ? value : 0;
  };
  const selector =
    paths.labelSelectorPath === undefined
      ? undefined
      : jsonPathValue(entry.obj, paths.labelSelectorPath);
  const scale: Scale = {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: {
      name: m.name,
      namespace: m.namespace,
      uid: m.uid,
      resourceVersion: String(entry.rv),
      creationTimestamp: m.creationTimestamp,
    },
    spec: { replicas: replicas(paths.specReplicasPath) },
    status: { replicas: replicas(paths.statusReplicasPath) },
  };
  if (typeof selector === 'string') scale.status.selector = selector;
  return scale;
}

/** Sets a `.a.b.c` path of an object, making the objects on the way. */
export function setPath(obj: Record<string, unknown>, path: string, value: unknown): void {
  const names = path.split('.').slice(1);
  let node = obj;
  for (const name of names.slice(0, -1)) {
    const next = node[name];
    if (typeof next !== 'object' || next === null || Array.isArray(next)) node[name] = {};
    node = node[name] as Record<string, unknown>;
  }
  node[names[names.length - 1]] = value;
}
