// kube-rx/testing: what users import to test their pipelines.
export * from './marbles/builders.js';
export { marbleWatchSource } from './marbles/marbleWatchSource.js';
export type {
  MarbleConnection,
  MarbleListAnswer,
  MarbleWatchSource,
  MarbleWatchSourceConfig,
} from './marbles/marbleWatchSource.js';
export type { ObjectPatch } from './marbles/builders.js';
export { FakeKubeApiServer } from './fakeKubeApiServer/FakeKubeApiServer.js';
export { FakeKubeApiError } from './fakeKubeApiServer/ObjectStore.js';
export type { FakeDeleteOptions } from './fakeKubeApiServer/deletion/objectApiRules.js';
export type { PropagationPolicy } from './fakeKubeApiServer/deletion/options.js';
export type {
  CertificateAndKey,
  ConnectionLogEntry,
  FailOptions,
  FakeKubeApiServerOptions,
  FakeServerFaults,
  Http2Records,
  KubeConfigOptions,
  PrinterColumn,
  RecordedRequest,
  ResourceDefinition,
} from './fakeKubeApiServer/types.js';
export type { ScaleSubresource } from '../objects/ResourceType.js';
