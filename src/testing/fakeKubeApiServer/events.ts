import type { KubernetesObject, ResourceRef } from '../../types.js';
import type { ObjectStore } from './ObjectStore.js';
import { linkViews } from './views.js';

type Obj = KubernetesObject & Record<string, unknown>;

/** core/v1 Events: the shape kube-apiserver stores both Event APIs in. */
export const CORE_EVENTS: ResourceRef<unknown> = { group: '', version: 'v1', plural: 'events' };
/** events.k8s.io/v1 Events: another view of the same objects. */
export const EVENTS_V1: ResourceRef<unknown> = {
  group: 'events.k8s.io',
  version: 'v1',
  plural: 'events',
};

// [events.k8s.io/v1 field, core/v1 field]: kubernetes pkg/apis/events/v1/conversion.go.
const RENAMED: Array<[string, string]> = [
  ['regarding', 'involvedObject'],
  ['note', 'message'],
  ['reportingController', 'reportingComponent'],
  ['deprecatedSource', 'source'],
  ['deprecatedFirstTimestamp', 'firstTimestamp'],
  ['deprecatedLastTimestamp', 'lastTimestamp'],
  ['deprecatedCount', 'count'],
];
// The same name in both.
const SHARED = [
  'metadata',
  'eventTime',
  'series',
  'reportingInstance',
  'action',
  'reason',
  'related',
  'type',
];

function convert(obj: Obj, apiVersion: string, toCore: boolean): Obj {
  const out: Obj = { kind: 'Event', apiVersion };
  for (const key of SHARED) if (obj[key] !== undefined) out[key] = structuredClone(obj[key]);
  for (const [v1, core] of RENAMED) {
    const [from, to] = toCore ? [v1, core] : [core, v1];
    if (obj[from] !== undefined) out[to] = structuredClone(obj[from]);
  }
  return out;
}

/**
 * An events.k8s.io/v1 Event as core/v1 (`regarding` -> `involvedObject`, `note` -> `message`,
 * `reportingController` -> `reportingComponent`, `deprecatedSource` -> `source`...).
 *
 * @example
 * toCoreEvent({ regarding: { kind: 'Pod', name: 'web' }, note: 'pulled' }).message; // 'pulled'
 */
export function toCoreEvent(event: KubernetesObject): KubernetesObject {
  return convert(event as Obj, 'v1', true);
}

/** A core/v1 Event as events.k8s.io/v1 (the reverse of {@link toCoreEvent}). */
export function toEventsV1(event: KubernetesObject): KubernetesObject {
  return convert(event as Obj, 'events.k8s.io/v1', false);
}

/**
 * Serves core/v1 and events.k8s.io/v1 Events as two views of one store, as kube-apiserver
 * does: an Event written through either API lists and watches through both, at one
 * resourceVersion.
 */
export function serveEvents(objects: ObjectStore): void {
  linkViews(objects, [
    { ref: CORE_EVENTS, fromStored: (o) => o, toStored: (o) => o },
    { ref: EVENTS_V1, fromStored: toEventsV1, toStored: toCoreEvent },
  ]);
}
