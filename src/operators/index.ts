export { withBookmarks } from './withBookmarks.js';
export type { WithBookmarksConfig } from './withBookmarks.js';
export { resumeFromResourceVersion } from './resumeFromResourceVersion.js';
export type {
  BackoffEvent,
  ConnectedEvent,
  ConnectingEvent,
  DisconnectedEvent,
  ExpiredEvent,
  LifecycleEvent,
  RelistEndEvent,
  RelistStartEvent,
  ResumeConfig,
} from './resumeFromResourceVersion.js';
export { isInitialEventsEnd } from '../objects/isInitialEventsEnd.js';
export { ofEventType } from './ofEventType.js';
export type { EventNotOfType, EventOfType } from './ofEventType.js';
export { skipBookmarks } from './skipBookmarks.js';
export { objects } from './objects.js';
export type { ObjectOfEvent } from './objects.js';
export { throwOnWatchError } from './throwOnWatchError.js';
export { mergeWatches } from './mergeWatches.js';
export type {
  MergeWatchesConfig,
  MergedWatchEvent,
  ObjectsOfSources,
  TaggedErrorEvent,
  TaggedObjectEvent,
} from './mergeWatches.js';
export { toStore } from './toStore.js';
export type { ObjectsBySource, SourceOfEvent, StoreOfEvent, ToStoreConfig } from './toStore.js';
export type { MergedStore, Store } from './store/Store.js';
export { resilientWatch } from './resilientWatch.js';
export type { ResilientWatchConfig } from './resilientWatch.js';
export { shareWatch } from './shareWatch.js';
export type { ShareWatchConfig } from './shareWatch.js';
export type { AnyWatchEvent } from '../objects/AnyWatchEvent.js';
export { INITIAL_EVENTS_END_ANNOTATION } from '../objects/endBookmark.js';
export { changedBy } from './changedBy.js';
export type { ChangedByConfig } from './changedBy.js';
export { generationChanged } from './generationChanged.js';
export { ownerIndex } from './ownerIndex.js';
export type { Indexer, Indexers } from './store/IndexedObjects.js';
export { createInformers } from './createInformers.js';
export type { InformerStoreConfig, Informers, InformersConfig } from './createInformers.js';
