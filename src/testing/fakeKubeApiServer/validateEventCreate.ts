import type { KubernetesObject } from '../../types.js';
import { invalid, invalidValue, required } from './fieldErrors.js';
import type { FieldError } from './fieldErrors.js';
import { toCoreEvent } from './events.js';

type Obj = Record<string, any>;

const LIMITS: Array<[string, string, number]> = [
  ['reportingInstance', 'reportingInstance', 128],
  ['action', 'action', 128],
  ['reason', 'reason', 128],
];

const unset = (field: string): FieldError => invalidValue(field, '', 'needs to be unset');
const hasTime = (t: unknown): boolean => typeof t === 'string' && t !== '';

/**
 * kube-apiserver's checks on an Event created through the core/v1 API (legacy: only the
 * namespaces must agree, and an Event with `eventTime` must carry what a recorder writes).
 */
function legacyErrors(e: Obj, core: boolean): FieldError[] {
  const errors: FieldError[] = [];
  const ns = e.metadata?.namespace ?? '';
  const involvedNs = e.involvedObject?.namespace ?? '';
  const mismatch = invalidValue(
    'involvedObject.namespace',
    involvedNs,
    'does not match event.namespace',
  );
  if (!hasTime(e.eventTime)) {
    if (involvedNs === '' ? ns !== '' && ns !== 'default' : ns !== involvedNs)
      errors.push(mismatch);
    return errors;
  }
  if (involvedNs === '' && ns !== 'default' && ns !== 'kube-system') errors.push(mismatch);
  const controller = core ? 'reportingComponent' : 'reportingController';
  if (!e.reportingComponent) errors.push(required(controller));
  for (const [key, field, limit] of LIMITS) {
    const value = typeof e[key] === 'string' ? e[key] : '';
    if (value === '') errors.push(required(field));
    else if (value.length > limit) {
      errors.push(invalidValue(field, '', `can have at most ${limit} characters`));
    }
  }
  if (typeof e.message === 'string' && e.message.length > 1024) {
    errors.push(invalidValue('message', '', 'can have at most 1024 characters'));
  }
  return errors;
}

/** The stricter checks of an Event created through events.k8s.io/v1. */
function strictErrors(e: Obj): FieldError[] {
  const errors: FieldError[] = [];
  if (e.series != null) {
    if (typeof e.series.count !== 'number' || e.series.count < 2) {
      errors.push(invalidValue('series.count', '', 'should be at least 2'));
    }
    if (!hasTime(e.series.lastObservedTime)) errors.push(required('series.lastObservedTime'));
  }
  if (!hasTime(e.eventTime)) errors.push(required('eventTime'));
  if (e.type !== 'Normal' && e.type !== 'Warning') {
    errors.push(invalidValue('type', '', `has invalid value: ${e.type ?? ''}`));
  }
  if (hasTime(e.firstTimestamp)) errors.push(unset('deprecatedFirstTimestamp'));
  if (hasTime(e.lastTimestamp)) errors.push(unset('deprecatedLastTimestamp'));
  if (typeof e.count === 'number' && e.count !== 0) errors.push(unset('deprecatedCount'));
  if (e.source?.component || e.source?.host) errors.push(unset('deprecatedSource'));
  return errors;
}

/**
 * Validates an Event being created as kube-apiserver does (`ValidateEventCreate`): through
 * events.k8s.io/v1 (`eventsApi`) strictly, through core/v1 as the legacy API. Throws the 422.
 */
export function validateEventCreate(event: KubernetesObject, eventsApi: boolean): void {
  const core = (eventsApi ? toCoreEvent(event) : event) as Obj;
  const errors = legacyErrors(core, !eventsApi);
  if (eventsApi) errors.push(...strictErrors(core));
  if (errors.length === 0) return;
  throw invalid('Event', eventsApi ? 'events.k8s.io' : '', event.metadata?.name, errors);
}
