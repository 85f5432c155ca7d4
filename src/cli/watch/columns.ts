import type { V1Deployment, V1Pod } from '@kubernetes/client-node';
import type { KubernetesObject } from '../../types.js';
import { formatAge } from '../format/age.js';
import { summarizePod } from '../format/summarizePod.js';
import { cellText, ROW_CELLS, type RowObject, type TableColumn } from './serverTable.js';

/**
 * The columns of `kube-rx watch -o table`: their headers, how an object becomes its row, and
 * which cell says that a row's object was deleted.
 */
export interface TableLayout {
  headers: string[];
  /** The cells of `object`'s row, one per header. */
  cells(object: KubernetesObject, now: number): string[];
  /** The index of the cell that reads `deletedText` on a DELETED event's row. */
  deletedColumn: number;
  deletedText: string;
}

/** How the table is asked for: `-o wide`, `-A`. */
export interface LayoutConfig {
  /** `-o wide`: the columns kubectl shows only then (server columns of priority above 0). */
  wide?: boolean;
  /** A NAMESPACE column first, for a namespaced resource watched in every namespace. */
  allNamespaces?: boolean;
}

const age = (o: KubernetesObject, now: number) => formatAge(o.metadata?.creationTimestamp, now);
const none = (values: Array<string | undefined> | undefined) =>
  values && values.length > 0 && values.some(Boolean) ? values.filter(Boolean).join(',') : '<none>';

function podCells(o: KubernetesObject, now: number): string[] {
  // One summary per row: READY, STATUS and RESTARTS all come from it.
  const { ready, status, restarts } = summarizePod(o as V1Pod);
  return [o.metadata?.name ?? '', ready, status, String(restarts), age(o, now)];
}

function podWideCells(o: KubernetesObject): string[] {
  const { spec, status } = o as V1Pod;
  return [
    status?.podIP || '<none>',
    spec?.nodeName || '<none>',
    status?.nominatedNodeName || '<none>',
    spec?.readinessGates?.length ? `${spec.readinessGates.length}` : '<none>',
  ];
}

function deploymentCells(o: KubernetesObject, now: number): string[] {
  const { spec, status } = o as V1Deployment;
  return [
    o.metadata?.name ?? '',
    `${status?.readyReplicas ?? 0}/${spec?.replicas ?? 1}`,
    String(status?.updatedReplicas ?? 0),
    String(status?.availableReplicas ?? 0),
    age(o, now),
  ];
}

function deploymentWideCells(o: KubernetesObject): string[] {
  const { spec } = o as V1Deployment;
  const containers = spec?.template?.spec?.containers ?? [];
  const labels = spec?.selector?.matchLabels ?? {};
  return [
    none(containers.map((c) => c.name)),
    none(containers.map((c) => c.image)),
    none(Object.entries(labels).map(([k, v]) => `${k}=${v}`)),
  ];
}

function otherCells(o: KubernetesObject, now: number): string[] {
  return [o.metadata?.name ?? '', age(o, now)];
}

/**
 * kube-rx's own columns, for a server that does not answer Tables: NAME, READY, STATUS,
 * RESTARTS, AGE for pods (wide: IP, NODE, NOMINATED NODE, READINESS GATES); NAME, READY,
 * UP-TO-DATE, AVAILABLE, AGE for deployments (wide: CONTAINERS, IMAGES, SELECTOR); NAME, AGE
 * otherwise. NAMESPACE comes first when watching every namespace. A deleted object reads
 * `Deleted` as its STATUS, or `<deleted>` as its AGE when it has no STATUS.
 *
 * @example
 * tableLayout('pods', '', { allNamespaces: true }).headers; // ['NAMESPACE', 'NAME', 'READY', ...]
 */
export function tableLayout(plural: string, group: string, config: LayoutConfig = {}): TableLayout {
  const { wide = false } = config;
  const isPods = plural === 'pods' && group === '';
  const isDeployments = plural === 'deployments' && group === 'apps';
  let headers = ['NAME', 'AGE'];
  let cells = otherCells;
  if (isPods) {
    headers = ['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE'];
    if (wide) headers.push('IP', 'NODE', 'NOMINATED NODE', 'READINESS GATES');
    cells = wide ? (o, now) => [...podCells(o, now), ...podWideCells(o)] : podCells;
  } else if (isDeployments) {
    headers = ['NAME', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'AGE'];
    if (wide) headers.push('CONTAINERS', 'IMAGES', 'SELECTOR');
    cells = wide
      ? (o, now) => [...deploymentCells(o, now), ...deploymentWideCells(o)]
      : deploymentCells;
  }
  return withNamespace({ headers, cells, ...deletedMarker(headers) }, config);
}

/**
 * The columns the server declared in its Table (what `kubectl get` prints, a custom resource's
 * printer columns included): headers in upper case, the columns of priority above 0 only with
 * `wide`, cells as kubectl prints them (`<none>` for a missing value). An object that came
 * without cells (the server stopped answering Tables) shows its name and `<unknown>`.
 *
 * @example
 * serverTableLayout(columns, { wide: true }).headers; // ['NAME', 'READY', ..., 'IP', 'NODE', ...]
 */
export function serverTableLayout(columns: TableColumn[], config: LayoutConfig = {}): TableLayout {
  const shown = columns.flatMap((column, i) => (config.wide || column.priority <= 0 ? [i] : []));
  const headers = shown.map((i) => columns[i].name.toUpperCase());
  const nameIndex = Math.max(
    0,
    shown.findIndex((i) => columns[i].format === 'name'),
  );
  const cells = (o: KubernetesObject): string[] => {
    const row = (o as RowObject)[ROW_CELLS];
    if (!row)
      return headers.map((_, i) => (i === nameIndex ? (o.metadata?.name ?? '') : '<unknown>'));
    return shown.map((i) => cellText(row[i]));
  };
  return withNamespace({ headers, cells, ...deletedMarker(headers) }, config);
}

/** STATUS reads `Deleted` on a deleted object's row; without a STATUS, AGE reads `<deleted>`. */
function deletedMarker(headers: string[]): Pick<TableLayout, 'deletedColumn' | 'deletedText'> {
  const status = headers.indexOf('STATUS');
  if (status !== -1) return { deletedColumn: status, deletedText: 'Deleted' };
  const ageColumn = headers.indexOf('AGE');
  return {
    deletedColumn: ageColumn === -1 ? headers.length - 1 : ageColumn,
    deletedText: '<deleted>',
  };
}

function withNamespace(layout: TableLayout, { allNamespaces = false }: LayoutConfig): TableLayout {
  if (!allNamespaces) return layout;
  const { headers, cells, deletedColumn, deletedText } = layout;
  return {
    headers: ['NAMESPACE', ...headers],
    cells: (o, now) => [o.metadata?.namespace ?? '', ...cells(o, now)],
    deletedColumn: deletedColumn + 1,
    deletedText,
  };
}
