// The public barrel of kube-rx. Types are exported with `export type`.
export type {
  Cluster,
  ClusterConnection,
  KubernetesObject,
  ListOptions,
  ListResult,
  Logger,
  ResolvedConnection,
  ResourceRef,
  WatchErrorEvent,
  WatchEvent,
  WatchEventType,
  WatchObjectEvent,
  WatchOptions,
} from './types.js';
export { WatchError, errorTypeForStatus } from './WatchError.js';
export type { WatchErrorInit, WatchErrorType } from './WatchError.js';
export { createWatchSource, sourceInit } from './sources/WatchSource.js';
export type { WatchSource, WatchSourceInit } from './sources/WatchSource.js';
