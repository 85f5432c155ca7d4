import { deployments, namespaces, nodes, pods, replicasets } from '../../objects/resources.js';
import type { KubernetesObject, ResourceRef } from '../../types.js';
import type { FakeKubeApiServer } from '../../testing/fakeKubeApiServer/FakeKubeApiServer.js';
import {
  deploymentObject,
  namespaceObject,
  nodeObject,
  podObject,
  replicaSetObject,
  type DemoDeployment,
  type DemoPod,
} from './demoObjects.js';

/** Options of {@link ClusterSimulator}. */
export interface SimulatorOptions {
  /** Random numbers in [0, 1) (default `Math.random`); a seeded one makes a run repeatable. */
  random?: () => number;
  /** The clock, in ms (default `Date.now`). */
  now?: () => number;
  /** Multiplies every duration of a pod's life (default 1; 0.1 runs ten times faster). */
  timeScale?: number;
}

const NODES = ['demo-node-1', 'demo-node-2', 'demo-node-3'];
const NAMESPACES = ['default', 'shop', 'monitoring'];
const DEPLOYMENTS: Array<
  Pick<DemoDeployment, 'namespace' | 'name' | 'replicas' | 'image' | 'crashLoops'>
> = [
  { namespace: 'shop', name: 'frontend', replicas: 3, image: 'nginx:1.27', crashLoops: false },
  { namespace: 'shop', name: 'cart', replicas: 2, image: 'demo/cart:2.4.1', crashLoops: false },
  {
    namespace: 'shop',
    name: 'checkout',
    replicas: 2,
    image: 'demo/checkout:3.0.0-rc1',
    crashLoops: true,
  },
  {
    namespace: 'monitoring',
    name: 'prometheus',
    replicas: 1,
    image: 'prom/prometheus:v2.53.0',
    crashLoops: false,
  },
  {
    namespace: 'monitoring',
    name: 'grafana',
    replicas: 1,
    image: 'grafana/grafana:11.1.0',
    crashLoops: false,
  },
  {
    namespace: 'default',
    name: 'hello',
    replicas: 2,
    image: 'demo/http-echo:1.0',
    crashLoops: false,
  },
];
// The characters Kubernetes uses for generated name suffixes (no vowels, no look-alikes).
const SUFFIX_ALPHABET = [...'bcdfghjklmnpqrstvwxz2456789'];
// Per tick: the chance that some pod is killed (and replaced), and that a deployment is scaled.
const KILL_CHANCE = 0.12;
const SCALE_CHANCE = 0.05;

/**
 * A small, busy cluster on a FakeKubeApiServer: namespaces, nodes, deployments with their
 * ReplicaSets and pods. Each `tick()` moves time on: pods go Pending -> ContainerCreating ->
 * Running, the `checkout` deployment's pods crash-loop (Error, CrashLoopBackOff, restarts
 * growing), pods get killed and replaced, deployments scale up and down, and the deployments'
 * ready counts follow, as a controller would keep them.
 *
 * @example
 * const sim = new ClusterSimulator(server);
 * sim.seed();
 * setInterval(() => sim.tick(), 250);
 */
export class ClusterSimulator {
  private readonly random: () => number;
  private readonly now: () => number;
  private readonly timeScale: number;
  private readonly deployments: DemoDeployment[] = [];
  private readonly pods = new Map<string, DemoPod>();
  /** When each pod moves to its next stage. */
  private readonly due = new Map<string, number>();
  /** The last JSON written per deployment/ReplicaSet, so unchanged ones are not rewritten. */
  private readonly written = new Map<string, string>();

  constructor(
    private readonly server: FakeKubeApiServer,
    options: SimulatorOptions = {},
  ) {
    this.random = options.random ?? Math.random;
    this.now = options.now ?? Date.now;
    this.timeScale = options.timeScale ?? 1;
  }

  /** Creates the namespaces, nodes, deployments, ReplicaSets and their (mostly running) pods. */
  seed(): void {
    const now = this.now();
    const hours = (h: number) => now - h * 3_600_000;
    for (const name of NAMESPACES) this.server.create(namespaces, namespaceObject(name, hours(30)));
    for (const name of NODES) this.server.create(nodes, nodeObject(name, hours(30)));
    for (const spec of DEPLOYMENTS) {
      const d: DemoDeployment = {
        ...spec,
        templateHash: this.hash(),
        createdAt: hours(2 + this.random() * 20),
      };
      this.deployments.push(d);
      for (let i = 0; i < d.replicas; i++) {
        const p = this.newPod(d, now - this.random() * 90 * 60_000);
        p.node = this.pick(NODES);
        p.startedAt = p.createdAt + 5_000;
        if (d.crashLoops) {
          p.stage = 'CrashLoopBackOff';
          p.restarts = 3 + Math.floor(this.random() * 5);
          this.schedule(p, 2_000, 6_000);
        } else p.stage = 'Running';
        this.server.create(pods, podObject(p));
      }
      this.syncDeployment(d);
    }
  }

  /** One step of the simulation: due pod transitions, now and then chaos, then reconciling. */
  tick(): void {
    const now = this.now();
    this.forgetPodsDeletedElsewhere();
    for (const [key, at] of [...this.due]) {
      if (at > now) continue;
      this.due.delete(key);
      const p = this.pods.get(key);
      if (p) this.advance(p);
    }
    if (this.random() < KILL_CHANCE) this.killSomePod();
    if (this.random() < SCALE_CHANCE) this.scaleSomeDeployment();
    for (const d of this.deployments) this.reconcile(d);
  }

  private advance(p: DemoPod): void {
    const d = this.deploymentOf(p);
    if (p.terminating) {
      this.pods.delete(this.key(p));
      this.server.delete(pods, p.namespace, p.name);
      if (d) this.syncDeployment(d);
      return;
    }
    switch (p.stage) {
      case 'Pending':
        p.stage = 'ContainerCreating';
        p.node = this.pick(NODES);
        p.startedAt = this.now();
        this.schedule(p, 1_500, 3_500);
        break;
      case 'ContainerCreating':
        p.stage = 'Running';
        if (d?.crashLoops) this.schedule(p, 2_000, 4_000);
        break;
      case 'Running':
        p.stage = 'Error';
        this.schedule(p, 800, 1_500);
        break;
      case 'Error':
        p.stage = 'CrashLoopBackOff';
        p.restarts++;
        // Kubernetes doubles the back-off per restart; a demo caps it to stay lively.
        this.schedule(p, 3_000, 3_000 + Math.min(p.restarts, 8) * 700);
        break;
      case 'CrashLoopBackOff':
        p.stage = 'Running';
        this.schedule(p, 2_000, 4_000);
        break;
    }
    this.server.update(pods, podObject(p));
    if (d) this.syncDeployment(d);
  }

  /**
   * Pods deleted from outside (`kubectl delete pod`) are forgotten, so that the deployment
   * replaces them, as the ReplicaSet controller would, rather than the simulation tripping over
   * a pod the server no longer has.
   */
  private forgetPodsDeletedElsewhere(): void {
    const onServer = new Set(
      this.server.objects(pods).map((p) => `${p.metadata?.namespace}/${p.metadata?.name}`),
    );
    for (const [key, p] of this.pods) {
      if (onServer.has(key)) continue;
      this.pods.delete(key);
      this.due.delete(key);
      const d = this.deploymentOf(p);
      if (d) this.syncDeployment(d);
    }
  }

  private killSomePod(): void {
    const alive = [...this.pods.values()].filter((p) => !p.terminating && p.stage === 'Running');
    if (alive.length > 0) this.terminate(this.pick(alive));
  }

  private scaleSomeDeployment(): void {
    const d = this.pick(this.deployments);
    const up = d.replicas <= 1 || (d.replicas < 5 && this.random() < 0.5);
    d.replicas += up ? 1 : -1;
    this.syncDeployment(d);
  }

  /** Like the ReplicaSet controller: creates missing pods, terminates extra ones (newest first). */
  private reconcile(d: DemoDeployment): void {
    const live = this.podsOf(d).filter((p) => !p.terminating);
    for (let i = live.length; i < d.replicas; i++) {
      const p = this.newPod(d, this.now());
      this.server.create(pods, podObject(p));
      this.schedule(p, 800, 2_000);
    }
    const extra = live
      .sort((a, b) => b.createdAt - a.createdAt)
      .slice(0, Math.max(0, live.length - d.replicas));
    for (const p of extra) this.terminate(p);
    if (live.length !== d.replicas) this.syncDeployment(d);
  }

  private terminate(p: DemoPod): void {
    p.terminating = true;
    this.server.update(pods, podObject(p));
    this.schedule(p, 1_000, 2_500);
    const d = this.deploymentOf(p);
    if (d) this.syncDeployment(d);
  }

  /** Writes the deployment and its ReplicaSet when their spec or status changed. */
  private syncDeployment(d: DemoDeployment): void {
    const own = this.podsOf(d);
    this.write(deployments, deploymentObject(d, own));
    this.write(replicasets, replicaSetObject(d, own));
  }

  private write(resource: ResourceRef, obj: KubernetesObject): void {
    const key = `${resource.plural}/${obj.metadata?.namespace}/${obj.metadata?.name}`;
    const { spec, status } = obj as { spec?: unknown; status?: unknown };
    const json = JSON.stringify([spec, status]);
    const before = this.written.get(key);
    if (before === json) return;
    this.written.set(key, json);
    if (before === undefined) this.server.create(resource, obj);
    else this.server.update(resource, obj);
  }

  private newPod(d: DemoDeployment, createdAt: number): DemoPod {
    const replicaSet = `${d.name}-${d.templateHash}`;
    let name: string;
    do name = `${replicaSet}-${this.suffix(5)}`;
    while (this.pods.has(`${d.namespace}/${name}`));
    const p: DemoPod = {
      namespace: d.namespace,
      name,
      deployment: d.name,
      replicaSet,
      templateHash: d.templateHash,
      image: d.image,
      stage: 'Pending',
      restarts: 0,
      createdAt,
      terminating: false,
    };
    this.pods.set(this.key(p), p);
    return p;
  }

  private podsOf(d: DemoDeployment): DemoPod[] {
    return [...this.pods.values()].filter(
      (p) => p.namespace === d.namespace && p.deployment === d.name,
    );
  }

  private deploymentOf(p: DemoPod): DemoDeployment | undefined {
    return this.deployments.find((d) => d.namespace === p.namespace && d.name === p.deployment);
  }

  private schedule(p: DemoPod, minMs: number, maxMs: number): void {
    const delay = (minMs + this.random() * (maxMs - minMs)) * this.timeScale;
    this.due.set(this.key(p), this.now() + delay);
  }

  private key(p: DemoPod): string {
    return `${p.namespace}/${p.name}`;
  }

  private pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.random() * items.length)];
  }

  private suffix(length: number): string {
    let s = '';
    for (let i = 0; i < length; i++) s += this.pick(SUFFIX_ALPHABET);
    return s;
  }

  /** A pod-template-hash: 10 characters, as Kubernetes makes them. */
  private hash(): string {
    return this.suffix(10);
  }
}
