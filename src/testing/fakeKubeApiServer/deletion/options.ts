import { parseJson, readBody } from '../body.js';
import type { Request } from '../protocol.js';
import { badRequest } from '../statusBody.js';
import { goStrings, invalidOptions, jsonType, notSupportedField, quote } from './fieldErrors.js';
import type { FieldError } from './fieldErrors.js';

/** How the dependents of a deleted object go (`DeleteOptions.propagationPolicy`). */
export type PropagationPolicy = 'Orphan' | 'Background' | 'Foreground';

const POLICIES = ['Foreground', 'Background', 'Orphan'];

/** The DeleteOptions of a DELETE, read from its body or (without a body) its query. */
export interface DeleteOptions {
  propagationPolicy?: string;
  /** Deprecated: true is `Orphan`, false is `Background` (and a 202 while the owner waits). */
  orphanDependents?: boolean;
  preconditions?: { uid?: string; resourceVersion?: string };
  gracePeriodSeconds?: number;
  dryRun?: string[];
}

/** ValidateDryRun: every value must be `All`. */
function dryRunErrors(values: string[]): FieldError[] {
  if (values.every((v) => v === 'All')) return [];
  return [notSupportedField('dryRun', goStrings(values), ['All'])];
}

/**
 * Whether the query of a create, update or patch asks for `dryRun=All`. Another value answers
 * the 422 its handler answers (`CreateOptions.meta.k8s.io "" is invalid: dryRun: ...`).
 */
export function dryRunQuery(
  query: Record<string, string>,
  options: 'CreateOptions' | 'UpdateOptions' | 'PatchOptions',
): boolean {
  const value = query.dryRun;
  if (value === undefined || value === '') return false;
  const errors = dryRunErrors([value]);
  if (errors.length > 0) throw invalidOptions(options, errors);
  return true;
}

function parseBool(name: string, value: string): boolean {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(value)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(value)) return false;
  throw badRequest(`invalid value for ${name}: ${quote(value)}`);
}

/** The options of a DELETE without a body: its query parameters (as the handler decodes them). */
function fromQuery(query: Record<string, string>): DeleteOptions {
  const options: DeleteOptions = {};
  if (query.propagationPolicy !== undefined) options.propagationPolicy = query.propagationPolicy;
  if (query.orphanDependents !== undefined) {
    options.orphanDependents = parseBool('orphanDependents', query.orphanDependents);
  }
  if (query.gracePeriodSeconds !== undefined) {
    if (!/^-?\d+$/.test(query.gracePeriodSeconds)) {
      throw badRequest(`invalid value for gracePeriodSeconds: ${quote(query.gracePeriodSeconds)}`);
    }
    options.gracePeriodSeconds = Number(query.gracePeriodSeconds);
  }
  if (query.dryRun !== undefined && query.dryRun !== '') options.dryRun = [query.dryRun];
  return options;
}

/**
 * Reads the DeleteOptions of a DELETE: the body when there is one (the query is then ignored, as
 * kube-apiserver's handler does), else the query. 400 for a body that is not DeleteOptions.
 */
export async function readDeleteOptions(
  req: Request,
  query: Record<string, string>,
): Promise<DeleteOptions> {
  const body = await readBody(req);
  if (body.length === 0) return fromQuery(query);
  const value = parseJson(body);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw badRequest('the body of a DELETE must be a DeleteOptions object');
  }
  const o = value as Record<string, unknown>;
  const wrong = (field: string, type: string): never => {
    throw badRequest(
      `json: cannot unmarshal ${jsonType(o[field])} into Go struct field DeleteOptions.${field} of type ${type}`,
    );
  };
  if (o.propagationPolicy != null && typeof o.propagationPolicy !== 'string') {
    wrong('propagationPolicy', 'v1.DeletionPropagation');
  }
  if (o.orphanDependents != null && typeof o.orphanDependents !== 'boolean') {
    wrong('orphanDependents', 'bool');
  }
  if (o.gracePeriodSeconds != null && !Number.isInteger(o.gracePeriodSeconds)) {
    wrong('gracePeriodSeconds', 'int64');
  }
  if (
    o.dryRun != null &&
    !(Array.isArray(o.dryRun) && o.dryRun.every((d) => typeof d === 'string'))
  ) {
    wrong('dryRun', '[]string');
  }
  const pre = o.preconditions as Record<string, unknown> | null | undefined;
  if (pre != null && (typeof pre !== 'object' || Array.isArray(pre))) {
    wrong('preconditions', 'v1.Preconditions');
  }
  return {
    propagationPolicy: (o.propagationPolicy ?? undefined) as string | undefined,
    orphanDependents: (o.orphanDependents ?? undefined) as boolean | undefined,
    gracePeriodSeconds: (o.gracePeriodSeconds ?? undefined) as number | undefined,
    dryRun: (o.dryRun ?? undefined) as string[] | undefined,
    preconditions:
      pre == null
        ? undefined
        : {
            uid: typeof pre.uid === 'string' ? pre.uid : undefined,
            resourceVersion:
              typeof pre.resourceVersion === 'string' ? pre.resourceVersion : undefined,
          },
  };
}

/** ValidateDeleteOptions: 422 `DeleteOptions.meta.k8s.io "" is invalid: ...`. */
export function validateDeleteOptions(options: DeleteOptions): void {
  const errors: FieldError[] = [];
  const policy = options.propagationPolicy;
  if (options.orphanDependents !== undefined && policy !== undefined) {
    errors.push({
      type: 'FieldValueInvalid',
      field: 'propagationPolicy',
      body: `Invalid value: ${quote(policy)}: orphanDependents and deletionPropagation cannot be both set`,
    });
  }
  if (policy !== undefined && !POLICIES.includes(policy)) {
    errors.push(notSupportedField('propagationPolicy', quote(policy), [...POLICIES, 'nil']));
  }
  errors.push(...dryRunErrors(options.dryRun ?? []));
  if (errors.length > 0) throw invalidOptions('DeleteOptions', errors);
}
