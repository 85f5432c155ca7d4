import type { V1Deployment, V1Pod } from '@kubernetes/client-node';
import type { KubernetesObject } from '../../types.js';
import { formatAge } from '../format/age.js';
import { summarizePod } from '../format/podStatus.js';

/** One column of `kube-rx watch -o table`. */
export interface Column {
  header: string;
  value(object: KubernetesObject, now: number): string;
}

/** The columns of a table, and which one says that a row's object was deleted. */
export interface TableLayout {
  columns: Column[];
  /** The column whose cell reads `deletedText` on a DELETED event's row. */
  deletedColumn: string;
  deletedText: string;
}

const name: Column = { header: 'NAME', value: (o) => o.metadata?.name ?? '' };
const namespace: Column = { header: 'NAMESPACE', value: (o) => o.metadata?.namespace ?? '' };
const age: Column = {
  header: 'AGE',
  value: (o, now) => formatAge(o.metadata?.creationTimestamp as unknown as string, now),
};

const podColumns: Column[] = [
  name,
  { header: 'READY', value: (o) => summarizePod(o as V1Pod).ready },
  { header: 'STATUS', value: (o) => summarizePod(o as V1Pod).status },
  { header: 'RESTARTS', value: (o) => String(summarizePod(o as V1Pod).restarts) },
  age,
];

const deploymentColumns: Column[] = [
  name,
  {
    header: 'READY',
    value: (o) => {
      const d = o as V1Deployment;
      return `${d.status?.readyReplicas ?? 0}/${d.spec?.replicas ?? 1}`;
    },
  },
  { header: 'UP-TO-DATE', value: (o) => String((o as V1Deployment).status?.updatedReplicas ?? 0) },
  { header: 'AVAILABLE', value: (o) => String((o as V1Deployment).status?.availableReplicas ?? 0) },
  age,
];

/**
 * The kubectl-like columns for a resource: NAME, READY, STATUS, RESTARTS, AGE for pods; NAME,
 * READY, UP-TO-DATE, AVAILABLE, AGE for deployments; NAME, AGE otherwise. NAMESPACE comes first
 * when watching every namespace. A deleted pod reads `Deleted` as its STATUS; other deleted
 * objects read `<deleted>` as their AGE.
 *
 * @example
 * tableLayout('pods', '', true).columns.map((c) => c.header); // ['NAMESPACE', 'NAME', 'READY', ...]
 */
export function tableLayout(plural: string, group: string, allNamespaces: boolean): TableLayout {
  const isPods = plural === 'pods' && group === '';
  const base = isPods
    ? podColumns
    : plural === 'deployments' && group === 'apps'
      ? deploymentColumns
      : [name, age];
  return {
    columns: allNamespaces ? [namespace, ...base] : base,
    deletedColumn: isPods ? 'STATUS' : 'AGE',
    deletedText: isPods ? 'Deleted' : '<deleted>',
  };
}
