import type { V1Deployment, V1Pod } from '@kubernetes/client-node';
import { defaultKey } from '../../objects/defaultKey.js';
import { summarizePod } from '../format/summarizePod.js';
import { DeploymentIndex } from './podOwnership.js';

/** A deployment as the page shows it. */
export interface DeploymentRow {
  kind: 'deployment';
  /** `namespace/name`. */
  id: string;
  namespace: string;
  name: string;
  desired: number;
  ready: number;
  updated: number;
  available: number;
  /** The images of its pod template, comma-separated. */
  images: string;
  created?: string;
}

/** How a pod's status reads at a glance. */
export type PodHealth = 'ok' | 'progressing' | 'failing' | 'terminating' | 'done';

/** A pod as the page shows it. */
export interface PodRow {
  kind: 'pod';
  /** `namespace/name`. */
  id: string;
  namespace: string;
  name: string;
  /** The `namespace/name` of its deployment, or null. */
  owner: string | null;
  status: string;
  health: PodHealth;
  ready: string;
  restarts: number;
  node: string;
  created?: string;
}

/** One row of the page: what the server sends and diffs. */
export type DashboardRow = DeploymentRow | PodRow;

/** The key a row is diffed under: kind and id (a deployment and a pod may share a name). */
export function rowKey(row: DashboardRow): string {
  return `${row.kind}:${row.id}`;
}

// A snapshot's objects are shared with the previous snapshot when unchanged, so a row is
// computed once per version of its object (and owner), not once per tick; the same row object
// then lets RowDiffer skip it without serialising it.
const deploymentRowCache = new WeakMap<V1Deployment, DeploymentRow>();
const podRowCache = new WeakMap<V1Pod, PodRow>();

/**
 * The rows for a snapshot of deployments and pods, each pod tagged with its deployment: the one
 * `owners` gives (found down the owner indexes, `podOwnersByIndex`), else the one
 * {@link DeploymentIndex} finds by ReplicaSet name or labels.
 *
 * @example
 * const d = store.store('deployments').values();
 * dashboardRows(d, store.store('pods').values(), podOwnersByIndex(d, replicaSets, podStore));
 */
export function dashboardRows(
  deployments: readonly V1Deployment[],
  pods: readonly V1Pod[],
  owners?: ReadonlyMap<V1Pod, string>,
): DashboardRow[] {
  const index = new DeploymentIndex(deployments);
  const rows: DashboardRow[] = [];
  for (const d of deployments) {
    let row = deploymentRowCache.get(d);
    if (!row) deploymentRowCache.set(d, (row = deploymentRow(d)));
    rows.push(row);
  }
  for (const pod of pods) {
    const owner = owners?.get(pod) ?? index.ownerOf(pod) ?? null;
    let row = podRowCache.get(pod);
    if (row?.owner !== owner) podRowCache.set(pod, (row = { ...(row ?? podRowBase(pod)), owner }));
    rows.push(row);
  }
  return rows;
}

function deploymentRow(d: V1Deployment): DeploymentRow {
  return {
    kind: 'deployment',
    id: defaultKey(d),
    namespace: d.metadata?.namespace ?? '',
    name: d.metadata?.name ?? '',
    desired: d.spec?.replicas ?? 1,
    ready: d.status?.readyReplicas ?? 0,
    updated: d.status?.updatedReplicas ?? 0,
    available: d.status?.availableReplicas ?? 0,
    images: (d.spec?.template?.spec?.containers ?? []).map((c) => c.image ?? c.name).join(', '),
    created: timestamp(d.metadata?.creationTimestamp),
  };
}

function podRowBase(pod: V1Pod): Omit<PodRow, 'owner'> {
  const summary = summarizePod(pod);
  return {
    kind: 'pod',
    id: defaultKey(pod),
    namespace: pod.metadata?.namespace ?? '',
    name: pod.metadata?.name ?? '',
    status: summary.status,
    health: healthOf(summary.status, summary.allReady),
    ready: summary.ready,
    restarts: summary.restarts,
    node: pod.spec?.nodeName ?? '',
    created: timestamp(pod.metadata?.creationTimestamp),
  };
}

const PROGRESSING = new Set(['Pending', 'ContainerCreating', 'PodInitializing']);
const DONE = new Set(['Completed', 'Succeeded']);

function healthOf(status: string, allReady: boolean): PodHealth {
  if (status === 'Terminating') return 'terminating';
  if (DONE.has(status)) return 'done';
  if (status === 'Running') return allReady ? 'ok' : 'progressing';
  if (PROGRESSING.has(status) || status.startsWith('Init:')) return 'progressing';
  return 'failing';
}

/** Timestamps arrive as strings in JSON even where the model types say Date. */
function timestamp(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  return value instanceof Date ? value.toISOString() : String(value);
}
