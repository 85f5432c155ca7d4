import type { V1Deployment, V1Pod } from '@kubernetes/client-node';
import type { KubernetesObject } from '../../types.js';
import type { PrinterColumn } from './types.js';

/** One column of a Table: its definition and how a cell is computed from an object. */
export interface Column {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
  cell(obj: KubernetesObject, now: number): unknown;
}

/** Go's `duration.HumanDuration`, as kubectl and the API server print ages (`5s`, `3m2s`, `4d`). */
export function humanDuration(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 120) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 10) return s % 60 === 0 ? `${m}m` : `${m}m${s % 60}s`;
  if (m < 180) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 8) return m % 60 === 0 ? `${h}h` : `${h}h${m % 60}m`;
  if (h < 48) return `${h}h`;
  const d = Math.floor(h / 24);
  if (h < 192) return h % 24 === 0 ? `${d}d` : `${d}d${h % 24}h`;
  if (d < 365 * 2) return `${d}d`;
  const y = Math.floor(d / 365);
  if (d < 365 * 8) return d % 365 === 0 ? `${y}y` : `${y}y${d % 365}d`;
  return `${y}y`;
}

function age(obj: KubernetesObject, now: number): string {
  const created = obj.metadata?.creationTimestamp;
  if (created === undefined) return '<unknown>';
  return humanDuration(now - new Date(created as unknown as string).getTime());
}

const col = (
  name: string,
  cell: Column['cell'],
  opts: { type?: string; format?: string; priority?: number; description?: string } = {},
): Column => ({
  name,
  type: opts.type ?? 'string',
  format: opts.format ?? '',
  description: opts.description ?? '',
  priority: opts.priority ?? 0,
  cell,
});

const NAME = col('Name', (o) => o.metadata?.name ?? '', {
  format: 'name',
  description: 'Name must be unique within a namespace.',
});
const AGE = col('Age', age, {
  description:
    'CreationTimestamp is a timestamp representing the server time when this object was created.',
});

/** The STATUS column of `kubectl get pods`: a waiting/terminated reason, or the phase. */
function podStatus(p: V1Pod): string {
  if (p.metadata?.deletionTimestamp !== undefined) return 'Terminating';
  let reason = p.status?.reason ?? p.status?.phase ?? 'Unknown';
  for (const c of p.status?.containerStatuses ?? []) {
    const why = c.state?.waiting?.reason ?? c.state?.terminated?.reason;
    if (why !== undefined && why !== '') reason = why;
  }
  return reason;
}

const POD_COLUMNS: Column[] = [
  NAME,
  col(
    'Ready',
    (o) => {
      const p = o as V1Pod;
      const total = p.spec?.containers?.length ?? 0;
      const ready = (p.status?.containerStatuses ?? []).filter((c) => c.ready).length;
      return `${ready}/${total}`;
    },
    { description: 'The aggregate readiness state of this pod for accepting traffic.' },
  ),
  col('Status', (o) => podStatus(o as V1Pod), {
    description: 'The aggregate status of the containers in this pod.',
  }),
  col(
    'Restarts',
    (o) =>
      String(
        ((o as V1Pod).status?.containerStatuses ?? []).reduce(
          (n, c) => n + (c.restartCount ?? 0),
          0,
        ),
      ),
    { description: 'The number of times the containers in this pod have been restarted.' },
  ),
  AGE,
  col('IP', (o) => (o as V1Pod).status?.podIP ?? '<none>', { priority: 1 }),
  col('Node', (o) => (o as V1Pod).spec?.nodeName ?? '<none>', { priority: 1 }),
];

const DEPLOYMENT_COLUMNS: Column[] = [
  NAME,
  col(
    'Ready',
    (o) => {
      const d = o as V1Deployment;
      return `${d.status?.readyReplicas ?? 0}/${d.spec?.replicas ?? 1}`;
    },
    { description: 'Number of the pod with ready state' },
  ),
  col('Up-to-date', (o) => (o as V1Deployment).status?.updatedReplicas ?? 0, {
    type: 'integer',
    description:
      'Total number of non-terminated pods targeted by this deployment that have the desired template spec.',
  }),
  col('Available', (o) => (o as V1Deployment).status?.availableReplicas ?? 0, {
    type: 'integer',
    description:
      'Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.',
  }),
  AGE,
  col(
    'Containers',
    (o) =>
      ((o as V1Deployment).spec?.template?.spec?.containers ?? []).map((c) => c.name).join(','),
    { priority: 1 },
  ),
  col(
    'Images',
    (o) =>
      ((o as V1Deployment).spec?.template?.spec?.containers ?? [])
        .map((c) => c.image ?? '')
        .join(','),
    { priority: 1 },
  ),
];

/** kube-apiserver's columns for leases: who holds each. */
const LEASE_COLUMNS: Column[] = [
  NAME,
  col('Holder', (o) => (o as { spec?: { holderIdentity?: string } }).spec?.holderIdentity ?? '', {
    description: 'The identity of the current holder of the lease.',
  }),
  AGE,
];

/** Evaluates a CRD printer column's JSONPath (`.a.b`, `.a[0].b`, `.a[?(@.k=="v")].b`). */
export function jsonPathValue(obj: unknown, path: string): unknown {
  const tokens = path.match(/\.[^.[\]]+|\[\?\(@\.[^=]+==["'][^"']*["']\)\]|\[\d+\]/g) ?? [];
  let node: unknown = obj;
  for (const t of tokens) {
    if (node === null || node === undefined) return undefined;
    if (t.startsWith('.')) node = (node as Record<string, unknown>)[t.slice(1)];
    else if (/^\[\d+\]$/.test(t))
      node = Array.isArray(node) ? node[Number(t.slice(1, -1))] : undefined;
    else {
      const [, key, value] = /^\[\?\(@\.([^=]+)==["']([^"']*)["']\)\]$/.exec(t)!;
      node = Array.isArray(node)
        ? node.find((i) => String((i as Record<string, unknown>)?.[key]) === value)
        : undefined;
    }
  }
  return node;
}

/** A `date` cell as the API server prints it for a CRD: the age of the timestamp (`5m`). */
function dateCell(value: unknown, now: number): unknown {
  if (typeof value !== 'string') return value ?? null;
  const at = new Date(value).getTime();
  return Number.isNaN(at) ? value : humanDuration(now - at);
}

function printerColumn(c: PrinterColumn): Column {
  const value = (o: KubernetesObject, now: number): unknown => {
    const v = jsonPathValue(o, c.jsonPath);
    return c.type === 'date' ? dateCell(v, now) : (v ?? null);
  };
  return col(c.name, value, {
    type: c.type,
    format: c.format,
    priority: c.priority,
    description: c.description,
  });
}

/**
 * The columns the API server prints for a resource: kubectl's for pods, deployments and leases, a
 * CRD's printer columns (after Name, before Age), otherwise Name and Age.
 */
export function columnsFor(
  kind: string,
  builtin: boolean,
  printerColumns: PrinterColumn[],
): Column[] {
  if (builtin && kind === 'Pod') return POD_COLUMNS;
  if (builtin && kind === 'Deployment') return DEPLOYMENT_COLUMNS;
  if (builtin && kind === 'Lease') return LEASE_COLUMNS;
  if (!builtin) {
    const created = col('Age', (o, now) => dateCell(o.metadata?.creationTimestamp, now), {
      type: 'date',
    });
    return [NAME, ...printerColumns.map(printerColumn), created];
  }
  return [NAME, AGE];
}
