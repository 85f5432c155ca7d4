// What both entries of kube-rx export: everything but the KubeConfig adapter, which needs Node.js.
// index.ts (Node) adds it; browser.ts (the `browser` export condition) is this alone.
export type {
  Cluster,
  ClusterConnection,
  KubernetesObject,
  ListOptions,
  ListResult,
  Logger,
  ResolveContext,
  ResolvedConnection,
  ResolvedTls,
  LegacyResourceRef,
  ResourceRef,
  ResourceRefFields,
  VersionedResourceRef,
  WatchErrorEvent,
  WatchEvent,
  WatchEventType,
  WatchObjectEvent,
  WatchOptions,
} from './types.js';
export {
  WatchError,
  errorTypeForStatus,
  isAlreadyExists,
  isConflict,
  isGone,
  isInvalid,
  isNotFound,
} from './WatchError.js';
export type { FieldConflict, WatchErrorInit, WatchErrorType } from './WatchError.js';
export { createWatchSource, sourceInit } from './sources/WatchSource.js';
export type { WatchSource, WatchSourceInit } from './sources/WatchSource.js';
export { watchResource } from './watch.js';
export { fromWatch } from './sources/fromWatch.js';
export { fromList, DEFAULT_LIST_LIMIT } from './sources/fromList.js';
export { fromPodLogs } from './sources/fromPodLogs.js';
export type { PodLogsOptions } from './sources/fromPodLogs.js';
export { resolveConnection } from './client/connection/resolveConnection.js';
export { resourcePath } from './objects/resourcePath.js';
export type { ResourceLocation } from './objects/resourcePath.js';
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
} from './objects/resources.js';
export type { ResourceOptions } from './objects/resources.js';
export { matchesLabelSelector } from './objects/matchesLabelSelector.js';
export type { LabelSelector } from './objects/matchesLabelSelector.js';
export { LabelSelectorError } from './objects/LabelSelectorError.js';
export * from './operators/index.js';
export { metadataOnly } from './shapes/metadataOnly.js';
export { shareManagedFields } from './shapes/shareManagedFields.js';
export { shareStrings } from './shapes/shareStrings.js';
export { stripManagedFields } from './shapes/stripManagedFields.js';
export type { ObjectTransform, V1PartialObjectMetadata } from './types.js';
export { reconcileQueue } from './controller/reconcileQueue.js';
export { Action } from './controller/Action.js';
export type { QueueState, ReconcileReport } from './controller/ReconcileReport.js';
export type {
  Reconcile,
  ReconcileContext,
  ReconcileQueueConfig,
} from './controller/ReconcileQueueConfig.js';
export { controller } from './controller/controller.js';
export type {
  ControllerConfig,
  ControllerContext,
  ControllerSource,
  ControllerStores,
} from './controller/ControllerConfig.js';
export { leaderElection } from './controller/leaderElection.js';
export type { LeaderElectionConfig } from './controller/LeaderElectionConfig.js';
export type { ShardingConfig } from './controller/sharding/ShardingConfig.js';
export { whileLeader } from './controller/whileLeader.js';
export { setCondition } from './controller/kit/setCondition.js';
export type {
  ConditionInput,
  ConditionUpdate,
  ConditionsInput,
  StatusCondition,
} from './controller/kit/setCondition.js';
export { findCondition, isConditionTrue } from './controller/kit/findCondition.js';
export { controllerReference } from './controller/kit/controllerReference.js';
export { finalizer } from './controller/kit/finalizer.js';
export type { FinalizerContext, FinalizerHandlers } from './controller/kit/finalizer.js';
export { eventRecorder } from './controller/events/eventRecorder.js';
export type { EventRecorder, EventRecorderConfig } from './controller/events/eventRecorder.js';
export type { EventDropReason, EventRecord } from './controller/events/EventRecord.js';
export { resourceApi } from './client/write/resourceApi.js';
export type { ResourceApi, ScaleApi, StatusApi } from './client/write/ResourceApiTypes.js';
export type {
  ApiListOptions,
  ApplyOptions,
  DeleteOptions,
  DeletePreconditions,
  PatchOptions,
  PatchType,
  RequestOptions,
  WriteOptions,
} from './client/write/ResourceApiOptions.js';
export type {
  ApplyConfiguration,
  ApplyMetadata,
  DeepPartial,
  MetadataOf,
  WithMetadata,
} from './client/write/ApplyConfiguration.js';
export { retryOnConflict } from './client/write/retryOnConflict.js';
export type { ConflictBackoff, RetryOnConflictOptions } from './client/write/retryOnConflict.js';
