import type { V1Deployment, V1Pod } from '@kubernetes/client-node';
import type { KubernetesObject } from '../../types.js';
import { formatAge } from '../format/age.js';
import { summarizePod } from '../format/podStatus.js';

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

const age = (o: KubernetesObject, now: number) => formatAge(o.metadata?.creationTimestamp, now);

function podCells(o: KubernetesObject, now: number): string[] {
  // One summary per row: READY, STATUS and RESTARTS all come from it.
  const { ready, status, restarts } = summarizePod(o as V1Pod);
  return [o.metadata?.name ?? '', ready, status, String(restarts), age(o, now)];
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

function otherCells(o: KubernetesObject, now: number): string[] {
  return [o.metadata?.name ?? '', age(o, now)];
}

/**
 * The kubectl-like columns for a resource: NAME, READY, STATUS, RESTARTS, AGE for pods; NAME,
 * READY, UP-TO-DATE, AVAILABLE, AGE for deployments; NAME, AGE otherwise. NAMESPACE comes first
 * when watching every namespace. A deleted pod reads `Deleted` as its STATUS; other deleted
 * objects read `<deleted>` as their AGE.
 *
 * @example
 * tableLayout('pods', '', true).headers; // ['NAMESPACE', 'NAME', 'READY', ...]
 */
export function tableLayout(plural: string, group: string, allNamespaces: boolean): TableLayout {
  const isPods = plural === 'pods' && group === '';
  const isDeployments = plural === 'deployments' && group === 'apps';
  const headers = isPods
    ? ['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE']
    : isDeployments
      ? ['NAME', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'AGE']
      : ['NAME', 'AGE'];
  const cells = isPods ? podCells : isDeployments ? deploymentCells : otherCells;
  const deletedColumn = (isPods ? 2 : headers.length - 1) + (allNamespaces ? 1 : 0);
  return {
    headers: allNamespaces ? ['NAMESPACE', ...headers] : headers,
    cells: allNamespaces ? (o, now) => [o.metadata?.namespace ?? '', ...cells(o, now)] : cells,
    deletedColumn,
    deletedText: isPods ? 'Deleted' : '<deleted>',
  };
}
