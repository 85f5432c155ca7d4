/**
 * One printer column of a resource type (a CRD's `additionalPrinterColumns` entry).
 *
 * @example
 * const column: PrinterColumn = { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' };
 */
export interface PrinterColumn {
  /** Column header. */
  name: string;
  /** `integer`, `number`, `string`, `boolean` or `date`. */
  type: 'integer' | 'number' | 'string' | 'boolean' | 'date';
  /** A simple JSONPath into the object, e.g. `.spec.replicas` or `.status.conditions[0].type`. */
  jsonPath: string;
  /** Help text of the column. */
  description?: string;
  /** Format hint (`name`, `date`, ...). */
  format?: string;
  /** 0: shown by default; more: only with `-o wide`. */
  priority?: number;
}

/**
 * A CRD's scale subresource: where the replicas and the selector live in its objects
 * (`.spec.replicas`...), as `autoscaling/v1` Scale maps them.
 */
export interface ScaleSubresource {
  /** e.g. `.spec.replicas`: what a Scale's `spec.replicas` reads and writes. */
  specReplicasPath: string;
  /** e.g. `.status.replicas`: what a Scale's `status.replicas` reads. */
  statusReplicasPath: string;
  /** e.g. `.status.selector`: a label selector string, a Scale's `status.selector`. */
  labelSelectorPath?: string;
}

/** The subresources a resource type serves besides the object itself. */
export interface ResourceSubresources {
  /** `/status`: writes to the object keep the stored status; writes to `/status` change only it. */
  status?: boolean;
  /** `/scale`: an `autoscaling/v1` Scale mapped to the object's paths. */
  scale?: ScaleSubresource;
}

/**
 * How a list-valued field merges (a schema's `x-kubernetes-list-type` and
 * `x-kubernetes-list-map-keys`): `atomic` lists are replaced whole, `set` lists merge by value,
 * `map` lists merge by their `keys`.
 */
export interface ListType {
  type: 'atomic' | 'set' | 'map';
  /** The item fields that identify an item of a `map` list, e.g. `['name']`. */
  keys?: string[];
}

/**
 * One record of a resource type, shared by the CLI's discovery, the test server's registry and
 * its CRDs: what discovery says of it, and for custom resources what its CRD adds.
 *
 * @example
 * const crontabs: ResourceType = {
 *   group: 'stable.example.com', version: 'v1', plural: 'crontabs', singular: 'crontab',
 *   kind: 'CronTab', namespaced: true, shortNames: ['ct'],
 *   listTypes: { 'spec.ports': { type: 'map', keys: ['port', 'protocol'] } },
 * };
 */
export interface ResourceType {
  /** `''` for the core group. */
  group: string;
  version: string;
  plural: string;
  /** Lower case; the kind in lower case when the server leaves it empty. */
  singular: string;
  kind: string;
  namespaced: boolean;
  shortNames: string[];
  /** The verbs discovery lists (`get`, `list`, `watch`...), when known. */
  verbs?: string[];
  /** Discovery categories, e.g. `['all']`. */
  categories?: string[];
  /** The status and scale subresources, when the type has them. */
  subresources?: ResourceSubresources;
  /**
   * The list-valued fields whose merge is not atomic or that a schema names, by field path from
   * the object's root: dotted names, `[]` for the items of a list and `{}` for the values of a
   * map (`spec.ports`, `spec.servers[].ports`, `spec.byZone{}.hosts`). Read from a CRD's
   * `x-kubernetes-list-type` / `x-kubernetes-list-map-keys`.
   */
  listTypes?: Record<string, ListType>;
  /** A CRD version's `openAPIV3Schema`, as given (structural). */
  schema?: Record<string, unknown>;
  /** A CRD version's `additionalPrinterColumns`. */
  printerColumns?: PrinterColumn[];
}

/**
 * kube-apiserver's rule for a kind (the CRD names rule): letters and digits, a letter first, at
 * most 63 characters; mixed case allowed (`CronTab`, and even `crontab`).
 */
const KIND = /^[A-Za-z][A-Za-z0-9]{0,62}$/;

/**
 * Whether `kind` is a kind as Kubernetes accepts them: the one rule for discovery answers,
 * `resource(...)` and `defineResource`.
 *
 * @example
 * isValidKind('CronTab'); // true
 * isValidKind('Cron Tab'); // false
 */
export function isValidKind(kind: unknown): kind is string {
  return typeof kind === 'string' && KIND.test(kind);
}

/**
 * `group/version`, or `version` for the core group: the `apiVersion` of a type's objects.
 *
 * @example
 * groupVersionOf({ group: 'apps', version: 'v1' }); // 'apps/v1'
 */
export function groupVersionOf(type: Pick<ResourceType, 'group' | 'version'>): string {
  return type.group === '' ? type.version : `${type.group}/${type.version}`;
}

/**
 * The singular of a kind, as kube-apiserver defaults it (a CRD's `names.singular`, and what a
 * discovery entry without `singularName` means): the kind in lower case.
 *
 * @example
 * singularOfKind('CronTab'); // 'crontab'
 */
export function singularOfKind(kind: string): string {
  return kind.toLowerCase();
}

/**
 * A plural's singular, guessed where nothing says it (no discovery, no kind): the inverse of
 * kube's `UnsafeGuessKindToResource` for the common English plurals (`policies` -> `policy`,
 * `ingresses` -> `ingress`, `statuses` -> `status`, `boxes` -> `box`, `leases` -> `lease`).
 *
 * @example
 * singularOfPlural('networkpolicies'); // 'networkpolicy'
 */
export function singularOfPlural(plural: string): string {
  if (plural.endsWith('ies')) return `${plural.slice(0, -3)}y`;
  if (/(ss|us|x|z|ch|sh)es$/.test(plural)) return plural.slice(0, -2);
  if (plural.endsWith('s')) return plural.slice(0, -1);
  return plural;
}

/**
 * The kind guessed for a plural nobody described: its singular ({@link singularOfPlural}) with a
 * capital first letter. A guess: `cronjobs` gives `Cronjob`, where the kind is `CronJob`; look a
 * known type up first.
 *
 * @example
 * kindOfPlural('widgets'); // 'Widget'
 */
export function kindOfPlural(plural: string): string {
  const singular = singularOfPlural(plural);
  return singular.charAt(0).toUpperCase() + singular.slice(1);
}
