import { describe, expect, it } from '@jest/globals';
import {
  INITIAL_EVENTS_END_ANNOTATION,
  endBookmark,
  hasInitialEventsEndAnnotation,
  initialEventsEndObject,
} from '../../src/objects/endBookmark.js';

describe('the initial-events-end marker', () => {
  it('is the annotation the API server sets: k8s.io/initial-events-end', () => {
    expect(INITIAL_EVENTS_END_ANNOTATION).toBe('k8s.io/initial-events-end');
  });

  it('is recognised only with the value "true"', () => {
    const annotated = (value: string) => ({
      metadata: { annotations: { [INITIAL_EVENTS_END_ANNOTATION]: value } },
    });
    expect(hasInitialEventsEndAnnotation(annotated('true'))).toBe(true);
    expect(hasInitialEventsEndAnnotation(annotated('false'))).toBe(false);
    expect(hasInitialEventsEndAnnotation({ metadata: {} })).toBe(false);
    expect(hasInitialEventsEndAnnotation(null)).toBe(false);
  });

  it('keeps the shape of its template and does not change it', () => {
    const template = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { resourceVersion: '1', annotations: { team: 'a' } },
    };
    const object = initialEventsEndObject(template, '42');
    expect(object).toEqual({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        resourceVersion: '42',
        annotations: { team: 'a', [INITIAL_EVENTS_END_ANNOTATION]: 'true' },
      },
    });
    expect(template.metadata).toEqual({ resourceVersion: '1', annotations: { team: 'a' } });
  });

  it('closes a list-based sync with a BOOKMARK like the watch-list one', () => {
    const event = endBookmark<{ apiVersion: string }>('7', 'apps/v1');
    expect(event).toMatchObject({ type: 'BOOKMARK', resourceVersion: '7' });
    expect(event.object.apiVersion).toBe('apps/v1');
    expect(hasInitialEventsEndAnnotation(event.object)).toBe(true);
  });
});
