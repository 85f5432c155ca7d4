import type { KubernetesObject } from '../../../types.js';
import { badRequest, StatusError, statusBody } from '../statusBody.js';
import type { KubeStatus } from '../statusBody.js';
import {
  forbiddenField,
  goStrings,
  invalidError,
  invalidField,
  jsonType,
  quote,
} from './fieldErrors.js';
import type { FieldError } from './fieldErrors.js';

/** The finalizer the garbage collector keeps on an owner deleted with `Orphan`. */
export const ORPHAN_FINALIZER = 'orphan';
/** The finalizer the garbage collector keeps on an owner deleted with `Foreground`. */
export const FOREGROUND_FINALIZER = 'foregroundDeletion';
/** Finalizer names kube-apiserver accepts without a domain and without a warning. */
const STANDARD = new Set(['kubernetes', ORPHAN_FINALIZER, FOREGROUND_FINALIZER]);

const NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const NAME_MESSAGE =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const PREFIX_MESSAGE =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

/** The messages of apimachinery's IsQualifiedName for `value` (none when it is valid). */
export function qualifiedNameErrors(value: string): string[] {
  const parts = value.split('/');
  if (parts.length > 2) {
    return [
      `a qualified name ${NAME_MESSAGE} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  const errors: string[] = [];
  const name = parts.length === 2 ? parts[1] : parts[0];
  if (parts.length === 2) {
    const prefix = parts[0];
    if (prefix === '') errors.push('prefix part must be non-empty');
    else {
      if (prefix.length > 253) errors.push('prefix part must be no more than 253 characters');
      if (!DNS_SUBDOMAIN.test(prefix)) errors.push(`prefix part ${PREFIX_MESSAGE}`);
    }
  }
  if (name === '') errors.push('name part must be non-empty');
  else if (name.length > 63) errors.push('name part must be no more than 63 characters');
  if (!NAME.test(name)) errors.push(`name part ${NAME_MESSAGE}`);
  return errors;
}

/**
 * The finalizers of an incoming object as Go would decode them into ObjectMeta: a list of strings
 * (JSON null elements decode to ""). Anything else is the decode error kube-apiserver answers: 400
 * for a create or update body, 422 `patch: Invalid value` when a patch produced it.
 */
export function decodeFinalizers(
  obj: KubernetesObject,
  kind: string,
  version: string,
  via: 'body' | 'patch',
): void {
  const raw = (obj.metadata as Record<string, unknown> | undefined)?.finalizers;
  if (raw === undefined || raw === null) return;
  let error: string | undefined;
  if (!Array.isArray(raw))
    error = `cannot unmarshal ${jsonType(raw)} into Go struct field ObjectMeta.metadata.finalizers of type []string`;
  else {
    const bad = raw.find((f) => f !== null && typeof f !== 'string');
    if (bad !== undefined)
      error = `cannot unmarshal ${jsonType(bad)} into Go struct field ObjectMeta.metadata.finalizers of type string`;
    else obj.metadata!.finalizers = raw.map((f: string | null) => f ?? '');
  }
  if (error === undefined) return;
  if (via === 'body') {
    throw badRequest(
      `${kind} in version ${quote(version)} cannot be handled as a ${kind}: json: ${error}`,
    );
  }
  const details = {
    causes: [
      {
        reason: 'FieldValueInvalid',
        message: `Invalid value: ${quote(JSON.stringify(obj))}: json: ${error}`,
        field: 'patch',
      },
    ],
  };
  throw new StatusError(
    statusBody(
      422,
      ` ${quote('')} is invalid: patch: Invalid value: ${quote(JSON.stringify(obj))}: json: ${error}`,
      'Invalid',
      details as KubeStatus['details'],
    ),
  );
}

/** ValidateFinalizers: qualified names, and not both `orphan` and `foregroundDeletion`. */
function finalizerErrors(finalizers: string[]): FieldError[] {
  const errors: FieldError[] = [];
  for (const f of finalizers) {
    for (const message of qualifiedNameErrors(f)) {
      errors.push(invalidField('metadata.finalizers', quote(f), message));
    }
  }
  if (finalizers.includes(ORPHAN_FINALIZER) && finalizers.includes(FOREGROUND_FINALIZER)) {
    errors.push(
      invalidField(
        'metadata.finalizers',
        goStrings(finalizers),
        `finalizer ${ORPHAN_FINALIZER} and ${FOREGROUND_FINALIZER} cannot be both set`,
      ),
    );
  }
  return errors;
}

/** Go's `%v` of a metav1.Time (time.Time's String) for an RFC 3339 timestamp. */
function goTime(value: unknown): string {
  const date = new Date(String(value));
  if (Number.isNaN(date.getTime())) return quote(String(value));
  return date
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d{3}Z$/, ' +0000 UTC');
}

/**
 * kube-apiserver's checks of the deletion fields of a create or update (`prev` set): finalizers are
 * qualified names; once an object is terminating no finalizer may be added, its
 * `deletionTimestamp` and `deletionGracePeriodSeconds` stay (an update cannot clear them) and a
 * write cannot set them (only a DELETE does). Throws the 422 Invalid; fills what an update keeps.
 */
export function checkDeletionFields(
  obj: KubernetesObject,
  prev: KubernetesObject | undefined,
  kind: string,
  group: string,
): void {
  const meta = obj.metadata!;
  const before = prev?.metadata;
  if (prev === undefined) {
    // BeforeCreate: a new object is never terminating.
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
  } else {
    if (before?.deletionTimestamp !== undefined && before.deletionTimestamp !== null) {
      meta.deletionTimestamp = before.deletionTimestamp;
    }
    if (meta.deletionGracePeriodSeconds === undefined || meta.deletionGracePeriodSeconds === null) {
      if (before?.deletionGracePeriodSeconds !== undefined) {
        meta.deletionGracePeriodSeconds = before.deletionGracePeriodSeconds;
      }
    }
  }
  const finalizers = meta.finalizers ?? [];
  const errors = finalizerErrors(finalizers);
  if (prev !== undefined) {
    if (before?.deletionTimestamp !== undefined && before.deletionTimestamp !== null) {
      const old = new Set(before.finalizers ?? []);
      const extra = [...new Set(finalizers.filter((f) => !old.has(f)))].sort();
      if (extra.length > 0) {
        errors.push(
          forbiddenField(
            'metadata.finalizers',
            `no new finalizers can be added if the object is being deleted, found new finalizers ${goStrings(extra)}`,
          ),
        );
      }
    }
    const grace = meta.deletionGracePeriodSeconds;
    if (grace !== undefined && grace !== null && grace !== before?.deletionGracePeriodSeconds) {
      errors.push(
        invalidField(
          'metadata.deletionGracePeriodSeconds',
          String(grace),
          'field is immutable; may only be changed via deletion',
        ),
      );
    }
    const stamp = meta.deletionTimestamp;
    if (
      stamp !== undefined &&
      stamp !== null &&
      (before?.deletionTimestamp ?? undefined) === undefined
    ) {
      errors.push(
        invalidField(
          'metadata.deletionTimestamp',
          goTime(stamp),
          'field is immutable; may only be changed via deletion',
        ),
      );
    }
  }
  if (errors.length > 0) throw invalidError(kind, group, meta.name ?? '', errors);
}

/**
 * The warnings kube-apiserver sends for finalizer names without a domain (`Warning` headers; the
 * standard names `kubernetes`, `orphan` and `foregroundDeletion` excepted).
 */
export function finalizerWarnings(obj: KubernetesObject): string[] {
  return (obj.metadata?.finalizers ?? [])
    .filter((f) => !f.includes('/') && !STANDARD.has(f) && qualifiedNameErrors(f).length === 0)
    .map(
      (f) =>
        `metadata.finalizers: ${quote(f)}: prefer a domain-qualified finalizer name including a path (/) to avoid accidental conflicts with other finalizer writers`,
    );
}

/** The `Warning` header carrying `warnings` (none when empty), as kube-apiserver writes it. */
export function warningHeaders(warnings: string[]): Record<string, string> {
  if (warnings.length === 0) return {};
  return { Warning: warnings.map((w) => `299 - ${quote(w)}`).join(', ') };
}

/** `headers` plus the `Warning` header of a write that leaves `obj`. */
export function withWarnings(
  headers: Record<string, string>,
  obj: KubernetesObject,
): Record<string, string> {
  const { Warning: warning } = warningHeaders(finalizerWarnings(obj));
  if (warning === undefined) return headers;
  // After the warnings of field validation, when there are some.
  return { ...headers, Warning: headers.Warning ? `${headers.Warning}, ${warning}` : warning };
}
