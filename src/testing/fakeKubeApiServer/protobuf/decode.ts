import { MESSAGES } from './messages.generated.js';
import type { ProtoField } from './messages.generated.js';
import { readFields, readPackedVarints, WireError } from './wire.js';
import type { WireField } from './wire.js';

type Json = Record<string, unknown>;

const META = 'k8s.io.apimachinery.pkg.apis.meta.v1';
/**
 * Optional scalars that are pointers in the Go types: their zero is a value the client set
 * (`--replicas=0`), not an unset field. The protos do not say which fields are pointers, so
 * every other zero, empty string or false is dropped as Go's `omitempty` drops it.
 */
const KEEP_ZERO = new Set([
  'DeploymentSpec.replicas',
  'ReplicaSetSpec.replicas',
  'StatefulSetSpec.replicas',
  'ConfigMap.immutable',
  'Secret.immutable',
  'ServiceAccount.automountServiceAccountToken',
  'PodSpec.automountServiceAccountToken',
  'PodSpec.terminationGracePeriodSeconds',
  'PodSpec.activeDeadlineSeconds',
  'JobSpec.parallelism',
  'JobSpec.completions',
  'JobSpec.backoffLimit',
  'JobSpec.activeDeadlineSeconds',
  'JobSpec.ttlSecondsAfterFinished',
  'JobSpec.suspend',
  'CronJobSpec.suspend',
  'CronJobSpec.successfulJobsHistoryLimit',
  'CronJobSpec.failedJobsHistoryLimit',
]);

/** A message the decoder does not know, or a field of one it cannot read. */
export class UnsupportedMessage extends Error {}

const signed = (v: bigint): number => Number(BigInt.asIntN(64, v));

/** RFC 3339 in whole seconds, as `metav1.Time` marshals. */
function time(msg: Json): string | undefined {
  const seconds = Number(msg.seconds ?? 0);
  // The zero time is `null` in JSON: the field is left out (the server sets its timestamps).
  if (seconds === 0 && !msg.nanos) return undefined;
  return new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** The types whose JSON form is not an object of their fields. */
function special(type: string, raw: Buffer): { value: unknown } | undefined {
  switch (type) {
    case `${META}.Time`:
    case `${META}.MicroTime`:
      return { value: time(decodeMessage(type, raw, true)) };
    case 'k8s.io.apimachinery.pkg.api.resource.Quantity':
      return { value: decodeMessage(type, raw, true).string ?? '0' };
    case 'k8s.io.apimachinery.pkg.util.intstr.IntOrString': {
      const v = decodeMessage(type, raw, true);
      return { value: v.type === 1 ? (v.strVal ?? '') : (v.intVal ?? 0) };
    }
    case 'k8s.io.apimachinery.pkg.runtime.RawExtension':
    case `${META}.FieldsV1`: {
      const bytes = readFields(raw).find((f) => f.no === 1);
      return { value: bytes?.wireType === 2 ? JSON.parse(bytes.value.toString('utf8')) : {} };
    }
  }
  return undefined;
}

function scalar(type: string, f: WireField): unknown {
  switch (type) {
    case 'string':
      if (f.wireType === 2) return f.value.toString('utf8');
      break;
    case 'bytes':
      if (f.wireType === 2) return f.value.toString('base64');
      break;
    case 'bool':
      if (f.wireType === 0) return f.value !== 0n;
      break;
    case 'int32':
    case 'int64':
      if (f.wireType === 0) return signed(f.value);
      break;
    case 'double':
      if (f.wireType === 1) return f.value.readDoubleLE(0);
      break;
    case 'float':
      if (f.wireType === 5) return f.value.readFloatLE(0);
      break;
  }
  throw new WireError(`field ${f.no}: wire type ${f.wireType} is not a ${type}`);
}

/** One value of `field`: a scalar, or a nested message (as its JSON form). */
function value(field: ProtoField, f: WireField): unknown {
  const type = field[2];
  if (!(type in MESSAGES)) return scalar(type, f);
  if (f.wireType !== 2) throw new WireError(`field ${f.no}: a message needs wire type 2`);
  const converted = special(type, f.value);
  return converted === undefined ? decodeMessage(type, f.value) : converted.value;
}

function mapEntry(field: ProtoField, f: WireField): [string, unknown] {
  if (f.wireType !== 2) throw new WireError(`field ${f.no}: a map entry needs wire type 2`);
  let key = '';
  let entry: unknown = field[2] === 'string' ? '' : undefined;
  for (const e of readFields(f.value)) {
    if (e.no === 1) key = String(scalar('string', e));
    else if (e.no === 2) entry = value(field, e);
  }
  return [key, entry];
}

function isZero(v: unknown): boolean {
  return v === '' || v === 0 || v === false || v === undefined;
}

/**
 * Decodes a message of `type` (a name in MESSAGES) to its JSON form. `raw` keeps zero
 * scalars (the special types read their own fields).
 */
export function decodeMessage(type: string, buf: Buffer, raw = false): Json {
  const table = MESSAGES[type];
  if (table === undefined) throw new UnsupportedMessage(`no protobuf table for ${type}`);
  const out: Json = {};
  for (const f of readFields(buf)) {
    const field = table.find((t) => t[0] === f.no);
    if (field === undefined) {
      // A newer field than the tables know: refuse rather than drop what the client set.
      const empty = f.wireType === 2 ? f.value.length === 0 : f.wireType === 0 && f.value === 0n;
      if (empty) continue;
      throw new UnsupportedMessage(`field ${f.no} of ${type} is not in the protobuf tables`);
    }
    const [, name, type_, label] = field;
    if (label === 'i') {
      // An embedded Go struct (`json:",inline"`): a nested message on the wire, flat in JSON.
      Object.assign(out, value(field, f));
    } else if (label === 'm') {
      const [k, v] = mapEntry(field, f);
      ((out[name] ??= {}) as Json)[k] = v;
    } else if (label === 'r') {
      const list = (out[name] ??= []) as unknown[];
      const packed =
        f.wireType === 2 && !(type_ in MESSAGES) && !['string', 'bytes'].includes(type_);
      if (packed)
        list.push(
          ...readPackedVarints(f.value).map((v) => (type_ === 'bool' ? v !== 0n : signed(v))),
        );
      else list.push(value(field, f));
    } else {
      const v = value(field, f);
      if (raw || !isZero(v) || KEEP_ZERO.has(`${type.slice(type.lastIndexOf('.') + 1)}.${name}`)) {
        out[name] = v;
      } else delete out[name];
    }
  }
  return out;
}
