// The browser entry of kube-rx (the `browser` condition of the package's exports): everything of
// the Node entry (index.ts) but the KubeConfig adapter. Its bundle (dist/browser.js, made by
// scripts/browserBundle.mjs) sends requests with fetch + ReadableStream (platform.browser.ts);
// the cluster is a ClusterConnection resolving { server, headers }, a same-origin proxy
// typically. spec/browser/browserEntry.spec.ts keeps the two entries' exports in step.
export type {
  Cluster,
  ClusterConnection,
  KubernetesObject,
  ListOptions,
  ListResult,
  Logger,
  ResolvedConnection,
  ResolvedTls,
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
export { watchResource } from './watch.js';
export { fromWatch } from './sources/fromWatch.js';
export { fromList, DEFAULT_LIST_LIMIT } from './sources/fromList.js';
export { fromPodLogs } from './sources/fromPodLogs.js';
export type { PodLogsOptions } from './sources/fromPodLogs.js';
export { resolveConnection } from './sources/connection.js';
export { resourcePath } from './sources/resourcePath.js';
export type { ResourceLocation } from './sources/resourcePath.js';
export {
  resource,
  pods,
  services,
  configmaps,
  nodes,
  namespaces,
  events,
  deployments,
  replicasets,
} from './sources/resources.js';
export * from './operators/index.js';
