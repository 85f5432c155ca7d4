import { requestJson } from '../../client/request/requestJson.js';
import { resourcePath } from '../../objects/resourcePath.js';
import type { Cluster, Logger, ResourceRef } from '../../types.js';
import type { EventBody, EventSink, SeriesUpdate } from './EventSink.js';

const eventsV1: ResourceRef = {
  group: 'events.k8s.io',
  version: 'v1',
  plural: 'events',
  kind: 'Event',
};
const coreEvents: ResourceRef = { group: '', version: 'v1', plural: 'events', kind: 'Event' };

/**
 * Writes Events to the API server: events.k8s.io/v1 where it is served, else core/v1 (found
 * once: a 404 on events.k8s.io is followed by a look at its discovery document, since a 404 can
 * also mean that the namespace is missing). A series update is a merge patch of the count.
 * Failures reject with the request's `WatchError` (redacted, no body in its message).
 *
 * @example
 * const sink = httpEventSink(kc);
 * await sink.create(body, AbortSignal.timeout(10_000));
 */
export function httpEventSink(cluster: Cluster, logger?: Logger): EventSink {
  let api: 'events' | 'core' | undefined;

  async function served(signal: AbortSignal): Promise<boolean> {
    const got = await requestJson(cluster, {
      method: 'GET',
      path: '/apis/events.k8s.io/v1',
      signal,
      logger,
    });
    if (got.ok) return true;
    if (got.error.statusCode === 404) return false;
    throw got.error;
  }

  async function send(
    write: (version: 'events' | 'core') => Write,
    signal: AbortSignal,
  ): Promise<void> {
    const version = api ?? 'events';
    const { method, path, value, contentType } = write(version);
    const got = await requestJson(cluster, {
      method,
      path,
      body: value,
      contentType,
      signal,
      logger,
    });
    if (got.ok) {
      api = version;
      return;
    }
    if (api === undefined && got.error.statusCode === 404 && !(await served(signal))) {
      api = 'core';
      logger?.debug?.('events.k8s.io/v1 is not served: Events are written as core/v1');
      return send(write, signal);
    }
    throw got.error;
  }

  return {
    create(body, signal) {
      return send(
        (version) => ({
          method: 'POST',
          path: resourcePath(version === 'events' ? eventsV1 : coreEvents, {
            namespace: body.metadata.namespace,
          }),
          value:
            version === 'events'
              ? { apiVersion: 'events.k8s.io/v1', kind: 'Event', ...body }
              : coreEvent(body),
        }),
        signal,
      );
    },
    updateSeries(body, series, signal) {
      return send(
        (version) => ({
          method: 'PATCH',
          path: resourcePath(version === 'events' ? eventsV1 : coreEvents, {
            namespace: body.metadata.namespace,
            name: body.metadata.name,
          }),
          contentType: 'application/merge-patch+json',
          value: version === 'events' ? { series: series } : coreSeries(series),
        }),
        signal,
      );
    },
  };
}

/** One request of a write, in the chosen API's shape. */
interface Write {
  method: 'POST' | 'PATCH';
  path: string;
  value: unknown;
  contentType?: string;
}

/** The same Event in core/v1's fields. */
function coreEvent(body: EventBody): object {
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: body.metadata,
    involvedObject: body.regarding,
    ...(body.related && { related: body.related }),
    reason: body.reason,
    ...(body.note !== undefined && { message: body.note }),
    type: body.type,
    action: body.action,
    source: { component: body.reportingController },
    reportingComponent: body.reportingController,
    reportingInstance: body.reportingInstance,
    firstTimestamp: seconds(body.eventTime),
    lastTimestamp: seconds(body.eventTime),
    count: 1,
  };
}

function coreSeries(series: SeriesUpdate): object {
  return { count: series.count, lastTimestamp: seconds(series.lastObservedTime) };
}

/** metav1.Time: RFC 3339 in whole seconds. */
function seconds(microTime: string): string {
  return microTime.replace(/\.\d+Z$/, 'Z');
}
