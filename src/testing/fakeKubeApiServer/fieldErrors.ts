import { StatusError, statusBody } from './statusBody.js';

/** One validation error, as kube-apiserver's `field.Error` prints it. */
export interface FieldError {
  /** `FieldValueInvalid`, `FieldValueRequired`, `FieldValueNotSupported`, `FieldValueDuplicate`. */
  reason: string;
  field: string;
  /** What follows the field in the message: `Invalid value: "x": why`. */
  detail: string;
}

/** `field: Invalid value: "x": why`, with Go's quoting of strings. */
export function invalidValue(field: string, value: unknown, why: string): FieldError {
  return {
    reason: 'FieldValueInvalid',
    field,
    detail: `Invalid value: ${JSON.stringify(value ?? null)}: ${why}`,
  };
}

/** `field: Required value`, with an optional why. */
export function required(field: string, why = ''): FieldError {
  return { reason: 'FieldValueRequired', field, detail: `Required value${why ? `: ${why}` : ''}` };
}

/** `field: Unsupported value: "x": supported values: "a", "b"`. */
export function unsupported(field: string, value: unknown, supported: string[]): FieldError {
  const list = supported.map((s) => JSON.stringify(s)).join(', ');
  return {
    reason: 'FieldValueNotSupported',
    field,
    detail: `Unsupported value: ${JSON.stringify(value)}: supported values: ${list}`,
  };
}

/**
 * The 422 Invalid kube-apiserver answers: `Kind.group "name" is invalid: error` (a list in
 * brackets for several), details with the group and one cause per field error.
 */
export function invalid(
  kind: string,
  group: string,
  name: unknown,
  errors: FieldError[],
): StatusError {
  const shown = errors.map((e) => `${e.field}: ${e.detail}`);
  const list = shown.length === 1 ? shown[0] : `[${shown.join(', ')}]`;
  const qualified = group === '' ? kind : `${kind}.${group}`;
  const named = String(name ?? '');
  const status = statusBody(422, `${qualified} "${named}" is invalid: ${list}`, 'Invalid');
  // Set apart from statusBody's details type: causes and group are what clients read here.
  (status as { details?: unknown }).details = {
    name: named,
    ...(group !== '' && { group }),
    kind,
    causes: errors.map((e) => ({ reason: e.reason, message: e.detail, field: e.field })),
  };
  return new StatusError(status);
}
