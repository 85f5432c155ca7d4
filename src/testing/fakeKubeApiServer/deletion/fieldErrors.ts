import { StatusError, statusBody } from '../statusBody.js';
import type { KubeStatus } from '../statusBody.js';

/** One field error, as apimachinery's `field.Error` states it. */
export interface FieldError {
  /** `FieldValueInvalid`, `FieldValueForbidden`, `FieldValueNotSupported`. */
  type: string;
  /** The field path, e.g. `metadata.finalizers`. */
  field: string;
  /** The error body: `Invalid value: "x": must be ...`. */
  body: string;
}

/** Go's `%q` of a string, close enough for the values these errors print. */
export function quote(value: string): string {
  return JSON.stringify(value);
}

/** The name encoding/json gives a JSON value's type in its errors (`number`, `bool`...). */
export function jsonType(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'object') return 'object';
  return typeof value === 'boolean' ? 'bool' : typeof value;
}

/** Go's `%#v` of a `[]string`: `[]string{"a", "b"}`. */
export function goStrings(values: readonly string[]): string {
  return `[]string{${values.map(quote).join(', ')}}`;
}

/** `field.Invalid(path, value, detail)`; `value` already printed as Go prints it. */
export function invalidField(field: string, value: string, detail: string): FieldError {
  return { type: 'FieldValueInvalid', field, body: `Invalid value: ${value}: ${detail}` };
}

/** `field.Forbidden(path, detail)`. */
export function forbiddenField(field: string, detail: string): FieldError {
  return { type: 'FieldValueForbidden', field, body: `Forbidden: ${detail}` };
}

/** `field.NotSupported(path, value, supported)`; `value` already printed as Go prints it. */
export function notSupportedField(field: string, value: string, supported: string[]): FieldError {
  return {
    type: 'FieldValueNotSupported',
    field,
    body: `Unsupported value: ${value}: supported values: ${supported.map(quote).join(', ')}`,
  };
}

/**
 * The 422 Invalid Status of `errors.NewInvalid(groupKind, name, errs)`: `Kind.group "name" is
 * invalid: <errors>` (one error as is, several in brackets), one cause per error.
 */
export function invalidError(
  kind: string,
  group: string,
  name: string,
  errors: FieldError[],
): StatusError {
  const qualified = group === '' ? kind : `${kind}.${group}`;
  const texts = errors.map((e) => `${e.field}: ${e.body}`);
  const all = texts.length === 1 ? texts[0] : `[${texts.join(', ')}]`;
  const details = {
    name,
    ...(group !== '' ? { group } : {}),
    kind,
    causes: errors.map((e) => ({ reason: e.type, message: e.body, field: e.field })),
  };
  const message = `${qualified} ${quote(name)} is invalid: ${all}`;
  return new StatusError(statusBody(422, message, 'Invalid', details as KubeStatus['details']));
}

/**
 * The 422 of invalid request options (`CreateOptions`, `UpdateOptions`, `PatchOptions`,
 * `DeleteOptions`), as the handlers answer before touching the object.
 */
export function invalidOptions(kind: string, errors: FieldError[]): StatusError {
  return invalidError(kind, 'meta.k8s.io', '', errors);
}
