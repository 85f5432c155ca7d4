/** An Event as the recorder writes it, in the events.k8s.io/v1 shape. */
export interface EventBody {
  metadata: { name: string; namespace: string };
  eventTime: string;
  reportingController: string;
  reportingInstance: string;
  action: string;
  reason: string;
  type: string;
  note?: string;
  regarding: ObjectReference;
  related?: ObjectReference;
}

/** A reference to an object (core/v1 ObjectReference), as an Event names it. */
export interface ObjectReference {
  apiVersion?: string;
  kind?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  resourceVersion?: string;
}

/** The count of an Event that repeats (events.k8s.io/v1 EventSeries). */
export interface SeriesUpdate {
  count: number;
  /** MicroTime: RFC 3339 with microseconds. */
  lastObservedTime: string;
}

/**
 * Where the recorder's writes go: the API server (events.k8s.io/v1, or core/v1 where that is
 * not served), or a spec's recording sink. Both methods may reject: the recorder counts it.
 */
export interface EventSink {
  create(event: EventBody, signal: AbortSignal): Promise<void>;
  updateSeries(event: EventBody, series: SeriesUpdate, signal: AbortSignal): Promise<void>;
}
