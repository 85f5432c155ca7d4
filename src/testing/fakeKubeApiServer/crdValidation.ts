import { isValidSegment } from '../../objects/resourcePath.js';
import { isValidKind } from '../../objects/ResourceType.js';
import { schemaErrors } from './crdSchema.js';
import type { StatusError } from './statusBody.js';
import { invalid, invalidValue, required, unsupported } from './fieldErrors.js';
import type { FieldError } from './fieldErrors.js';

type Obj = Record<string, any>;

/** kube's DNS-1035 label (plural, singular, short names, version names). */
const DNS1035 = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const DNS1035_WHY =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
const SCOPES = ['Cluster', 'Namespaced'];

function label(errors: FieldError[], field: string, value: unknown, need: boolean): void {
  if (value === undefined || value === '') {
    if (need) errors.push(required(field));
  } else if (typeof value !== 'string' || !DNS1035.test(value) || value.length > 63) {
    errors.push(invalidValue(field, value, DNS1035_WHY));
  }
}

function namesErrors(names: Obj | undefined, errors: FieldError[]): void {
  const n = names ?? {};
  label(errors, 'spec.names.plural', n.plural, true);
  label(errors, 'spec.names.singular', n.singular, false);
  (Array.isArray(n.shortNames) ? n.shortNames : []).forEach((s: unknown, i: number) =>
    label(errors, `spec.names.shortNames[${i}]`, s, true),
  );
  for (const field of ['kind', 'listKind'] as const) {
    const value = n[field];
    if (value === undefined || value === '') {
      if (field === 'kind') errors.push(required(`spec.names.${field}`));
    } else if (!isValidKind(value)) {
      errors.push(
        invalidValue(
          `spec.names.${field}`,
          value,
          'may have mixed case, but should otherwise match: ' + DNS1035_WHY,
        ),
      );
    }
  }
}

function subresourceErrors(sub: unknown, path: string, errors: FieldError[]): void {
  const scale = (sub as Obj | undefined)?.scale;
  if (scale === undefined || scale === null) return;
  const under = (field: string, prefix: string, need: boolean): void => {
    const value = scale[field];
    if (value === undefined || value === '') {
      if (need) errors.push(required(`${path}.scale.${field}`));
    } else if (typeof value !== 'string' || !value.startsWith(`${prefix}.`)) {
      errors.push(
        invalidValue(`${path}.scale.${field}`, value, `should be a json path under ${prefix}`),
      );
    }
  };
  under('specReplicasPath', '.spec', true);
  under('statusReplicasPath', '.status', true);
  under('labelSelectorPath', '', false);
}

const COLUMN_TYPES = ['boolean', 'date', 'integer', 'number', 'string'];

function columnErrors(columns: unknown, path: string, errors: FieldError[]): void {
  (Array.isArray(columns) ? columns : []).forEach((c: Obj, i: number) => {
    if (typeof c?.name !== 'string' || c.name === '') errors.push(required(`${path}[${i}].name`));
    if (!COLUMN_TYPES.includes(c?.type)) {
      errors.push(unsupported(`${path}[${i}].type`, c?.type, COLUMN_TYPES));
    }
    if (typeof c?.jsonPath !== 'string' || c.jsonPath === '') {
      errors.push(required(`${path}[${i}].jsonPath`));
    } else if (!c.jsonPath.startsWith('.')) {
      errors.push(
        invalidValue(
          `${path}[${i}].jsonPath`,
          c.jsonPath,
          'must be a simple json path starting with .',
        ),
      );
    }
  });
}

function versionErrors(versions: unknown, errors: FieldError[]): void {
  if (!Array.isArray(versions) || versions.length === 0) {
    errors.push(
      required('spec.versions', 'must have exactly one version marked as storage version'),
    );
    return;
  }
  const seen = new Set<string>();
  let storage = 0;
  versions.forEach((v: Obj, i: number) => {
    const path = `spec.versions[${i}]`;
    label(errors, `${path}.name`, v?.name, true);
    // Stricter than kube-apiserver (any DNS-1035 label): the server routes Kubernetes versions.
    if (typeof v?.name === 'string' && DNS1035.test(v.name) && !isValidSegment('version', v.name)) {
      errors.push(
        invalidValue(
          `${path}.name`,
          v.name,
          'the fake server serves only versions such as v1, v1beta1, v2alpha1',
        ),
      );
    }
    columnErrors(v?.additionalPrinterColumns, `${path}.additionalPrinterColumns`, errors);
    if (seen.has(v?.name)) {
      errors.push({
        reason: 'FieldValueDuplicate',
        field: `${path}.name`,
        detail: `Duplicate value: ${JSON.stringify(v.name)}`,
      });
    }
    seen.add(v?.name);
    if (v?.storage === true) storage++;
    errors.push(...schemaErrors(v?.schema?.openAPIV3Schema, `${path}.schema.openAPIV3Schema`));
    subresourceErrors(v?.subresources, `${path}.subresources`, errors);
  });
  if (storage !== 1) {
    errors.push(
      invalidValue(
        'spec.versions',
        versions.map((v: Obj) => v?.name),
        'must have exactly one version marked as storage version',
      ),
    );
  }
  if (!versions.some((v: Obj) => v?.served === true)) {
    errors.push(
      invalidValue(
        'spec.versions',
        versions.map((v: Obj) => v?.name),
        'must have at least one served version',
      ),
    );
  }
}

/** What kube-apiserver finds wrong with a CustomResourceDefinition (v1); none when valid. */
export function crdErrors(crd: Obj): FieldError[] {
  const errors: FieldError[] = [];
  const spec: Obj = crd.spec ?? {};
  const group = spec.group;
  const name = crd.metadata?.name;
  if (group === undefined || group === '') errors.push(required('spec.group'));
  else if (typeof group !== 'string' || !isValidSegment('group', group)) {
    errors.push(invalidValue('spec.group', group, 'a lowercase RFC 1123 subdomain'));
  } else if (!group.includes('.')) {
    errors.push(invalidValue('spec.group', group, 'should be a domain with at least one dot'));
  }
  if (name !== `${spec.names?.plural}.${group}`) {
    errors.push(invalidValue('metadata.name', name, 'must be spec.names.plural+"."+spec.group'));
  }
  if (spec.scope === undefined || spec.scope === '') errors.push(required('spec.scope'));
  else if (!SCOPES.includes(spec.scope)) errors.push(unsupported('spec.scope', spec.scope, SCOPES));
  namesErrors(spec.names, errors);
  versionErrors(spec.versions, errors);
  return errors;
}

/** The 422 Invalid Status kube-apiserver answers for a CRD with `errors`. */
export function invalidCrd(name: unknown, errors: FieldError[]): StatusError {
  return invalid('CustomResourceDefinition', 'apiextensions.k8s.io', name, errors);
}
