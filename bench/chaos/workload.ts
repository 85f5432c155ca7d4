import { randomBytes } from 'node:crypto';
import type { KubernetesObject, V1Deployment, V1Pod } from '@kubernetes/client-node';
import type { ClusterConnection, ResolvedConnection, ResourceRef } from '../../src/types.js';
import type { FakeKubeApiServer } from '../../src/testing/index.js';
import { apiVersionOf, deployments, pods } from '../../src/objects/resources.js';
import { deployment, pod } from '../../src/testing/marbles/builders.js';
import type { Prng } from './prng.js';

/**
 * A credential source as a real deployment has one (a token file that a sidecar rewrites, an
 * exec plugin): `resolve()` reads the token current at that moment, so a reconnect after a
 * rotation carries the new token. `rotate()` models the refresh: the client's source and the
 * server's accepted token change in the same tick, and requests already on their way with the
 * old one get 401 (which the resumed watch retries once with fresh credentials).
 */
export class RotatingCredentials implements ClusterConnection {
  readonly name = 'chaos';
  private token: string;
  private generation = 0;

  constructor(
    private readonly server: FakeKubeApiServer,
    private readonly prefix = 'chaos-token',
  ) {
    this.token = `${prefix}-0`;
    server.rotateToken(this.token);
  }

  async resolve(): Promise<ResolvedConnection> {
    const ca = this.server.caPem;
    return {
      server: this.server.url,
      headers: { Authorization: `Bearer ${this.token}` },
      // A TLS server (the soak over HTTP/2) is verified against its own CA.
      ...(ca !== undefined ? { tls: { ca } } : {}),
    };
  }

  rotate(): void {
    this.token = `${this.prefix}-${++this.generation}-${randomBytes(8).toString('hex')}`;
    this.server.rotateToken(this.token);
  }
}

/** One kind of object the workload creates, updates and deletes. */
export interface WorkloadKind {
  resource: ResourceRef<KubernetesObject>;
  /** Names per namespace are drawn from this many (`${prefix}-0`...), so deleted names come back. */
  namesPerNamespace: number;
  /** The share of the name pool the workload keeps alive on average (0..1). */
  target: number;
  make(name: string, namespace: string, generation: number): KubernetesObject;
}

/** The metadata every workload object carries: a uid per generation, the generation as a label. */
const identity = (namespace: string, name: string, generation: number, labels = {}) => ({
  namespace,
  uid: `${namespace}-${name}-${generation}`,
  labels: { ...labels, generation: String(generation) },
});

/** A kind of `resource` whose objects `make` builds; the pool size and target come per run. */
const kindOf =
  (resource: ResourceRef, make: WorkloadKind['make']) =>
  (namesPerNamespace: number, target = 0.75): WorkloadKind => ({
    resource,
    namesPerNamespace,
    target,
    make,
  });

export const podKind = kindOf(pods, (name, namespace, generation): V1Pod =>
  pod(name, '', {
    metadata: identity(namespace, name, generation, { app: name.replace(/-\d+$/, '') }),
    status: { phase: generation % 3 === 0 ? 'Pending' : 'Running' },
  }),
);

export const deploymentKind = kindOf(deployments, (name, namespace, generation): V1Deployment =>
  deployment(name, '', {
    metadata: identity(namespace, name, generation),
    spec: {
      replicas: 1 + (generation % 4),
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [] } },
    },
  }),
);

/** A plain object kind (configmaps, services...) for the soak's many resources. */
export const genericKind = (
  resource: ResourceRef,
  kind: string,
  namesPerNamespace: number,
  target = 0.75,
): WorkloadKind =>
  kindOf(resource, (name, namespace, generation) => ({
    apiVersion: apiVersionOf(resource),
    kind,
    metadata: { name, ...identity(namespace, name, generation) },
    data: { generation: String(generation), payload: 'x'.repeat(64 + (generation % 64)) },
  }))(namesPerNamespace, target);

/** How many mutations of each kind a workload made. */
export interface MutationCounts {
  created: number;
  updated: number;
  deleted: number;
  total: number;
}

/**
 * Random creates, updates and deletes, chosen by a seeded PRNG, over a fixed pool of names per
 * namespace: the population hovers around each kind's target, names are reused after deletion
 * (a new uid), and nothing grows without bound.
 */
export class Workload {
  readonly counts: MutationCounts = { created: 0, updated: 0, deleted: 0, total: 0 };
  private generation = 0;

  constructor(
    private readonly server: FakeKubeApiServer,
    private readonly kinds: readonly WorkloadKind[],
    private readonly namespaces: readonly string[],
    private readonly random: Prng,
  ) {}

  /** One mutation of a random object of a random kind. */
  mutate(): void {
    const kind = this.random.pick(this.kinds);
    const namespace = this.random.pick(this.namespaces);
    const prefix = kind.resource.plural.slice(0, 3);
    const name = `${prefix}-${this.random.int(kind.namesPerNamespace)}`;
    const existing = this.server.get(kind.resource, namespace, name);
    const generation = ++this.generation;
    if (!existing) {
      this.server.create(kind.resource, kind.make(name, namespace, generation));
      this.counts.created++;
    } else if (this.random.next() < deleteChance(kind)) {
      this.server.delete(kind.resource, namespace, name);
      this.counts.deleted++;
    } else {
      const next = kind.make(name, namespace, generation);
      // Same object (same uid), new content.
      next.metadata = { ...next.metadata, uid: existing.metadata?.uid };
      this.server.update(kind.resource, next);
      this.counts.updated++;
    }
    this.counts.total++;
  }
}

/**
 * A mutation picks a name at random: a missing one is created, an existing one is deleted with
 * chance p and updated otherwise. The share s of live names settles where creations balance
 * deletions, (1 - s) = s * p, so p = (1 - t) / t keeps it near the target t (t = 0.75: half the
 * mutations are updates, a quarter creations, a quarter deletions).
 */
function deleteChance(kind: WorkloadKind): number {
  const t = Math.min(0.95, Math.max(0.05, kind.target));
  return (1 - t) / t;
}
