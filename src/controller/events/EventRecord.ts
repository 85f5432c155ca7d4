import type { KubernetesObject } from '../../types.js';

/**
 * What one Event says about an object: `record(regarding, { type, reason, action, note })`.
 * The fields are events.k8s.io/v1's.
 *
 * @example
 * recorder.record(tenant, { type: 'Normal', reason: 'Provisioned', action: 'Reconcile', note: 'namespace t-a created' });
 */
export interface EventRecord {
  /** `'Normal'`, or `'Warning'` for what a person should look at. */
  type: 'Normal' | 'Warning';
  /** Why, in CamelCase (at most 128 characters), e.g. `'Provisioned'`. */
  reason: string;
  /** What the controller did or failed to do, e.g. `'Reconcile'` (at most 128 characters). */
  action: string;
  /** A human-readable description (cut to 1 KiB, the API's bound). */
  note?: string;
  /** A second object the event is about (e.g. the child that was created). */
  related?: KubernetesObject;
}

/** Why an Event was not written: see `EventRecorderConfig.onDrop`. */
export type EventDropReason =
  /** The object's token bucket was empty (a flood: burst 25, one more per 5 minutes). */
  | 'rate-limited'
  /** Too many writes were already waiting for the API server. */
  | 'overflow'
  /** The API server refused or never answered the write. */
  | 'write-failed'
  /** The event itself was invalid (no reason, an unknown type...); logged. */
  | 'invalid';
