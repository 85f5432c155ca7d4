import type { V1Deployment } from '@kubernetes/client-node';
import { deployments, namespaces, nodes, pods, replicasets } from '../../objects/resources.js';
import type { FakeKubeApiServer } from '../../testing/fakeKubeApiServer/FakeKubeApiServer.js';
import {
  deploymentObject,
  deploymentStatus,
  namespaceObject,
  nodeObject,
  podObject,
  replicaSetObject,
  type DemoDeployment,
  type DemoPod,
} from './demoObjects.js';
import { DEPLOYMENTS, NAMESPACES, NODES } from './demoSeed.js';

/** Options of {@link ClusterSimulator}. */
export interface SimulatorOptions {
  /** Random numbers in [0, 1) (default `Math.random`); a seeded one makes a run repeatable. */
  random?: () => number;
  /** The clock, in ms (default `Date.now`). */
  now?: () => number;
  /** Multiplies every duration of a pod's life (default 1; 0.1 runs ten times faster). */
  timeScale?: number;
}

// The characters Kubernetes uses for generated name suffixes (no vowels, no look-alikes).
const SUFFIX_ALPHABET = [...'bcdfghjklmnpqrstvwxz2456789'];
// Per tick: the chance that some pod is killed (and replaced), and that a deployment is scaled.
const KILL_CHANCE = 0.12;
const SCALE_CHANCE = 0.05;

/** What the simulation keeps per deployment beside its API object. */
interface DeploymentState {
  templateHash: string;
  /** Its pods crash after starting, forever (a bad release). */
  crashLoops: boolean;
}

/**
 * A small, busy cluster on a FakeKubeApiServer: namespaces, nodes, deployments with their
 * ReplicaSets and pods. It plays two parts of a real cluster:
 * - the kubelet and the chaos, stepped by `tick()`: pods go Pending -> ContainerCreating ->
 *   Running, the `checkout` deployment's pods crash-loop (Error, CrashLoopBackOff, restarts
 *   growing), terminating pods go away; now and then a pod is killed or a deployment scaled,
 *   through the API as a user would (never a deployment whose replicas the user set);
 * - the deployment controller's work, `reconcile(key, deployment)`, run by a kube-rx
 *   `controller()` (see `demoDeploymentController`): pods created or terminated until the
 *   deployment's `spec.replicas` run, its ReplicaSet and the status kept up to date. The
 *   deployment's spec is only ever read, so `kubectl scale` stays as the user set it.
 *
 * @example
 * const sim = new ClusterSimulator(server);
 * sim.seed();
 * demoDeploymentController(server.kubeConfig(), sim).subscribe();
 * setInterval(() => sim.tick(), 250);
 */
export class ClusterSimulator {
  private readonly random: () => number;
  private readonly now: () => number;
  private readonly timeScale: number;
  /** What the simulation keeps per deployment (`namespace/name`) beside its API object. */
  private readonly deployments = new Map<string, DeploymentState>();
  private readonly pods = new Map<string, DemoPod>();
  /** When each pod moves to its next stage. */
  private readonly due = new Map<string, number>();
  /** The last JSON written per deployment status/ReplicaSet, so unchanged ones are not rewritten. */
  private readonly written = new Map<string, string>();
  /**
   * The replicas the simulation itself last gave each deployment: one whose replicas differ was
   * scaled by someone else (kubectl), and the simulation leaves it alone from then on.
   */
  private readonly scaledTo = new Map<string, number>();

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
      const key = `${d.namespace}/${d.name}`;
      this.deployments.set(key, { templateHash: d.templateHash, crashLoops: d.crashLoops });
      this.scaledTo.set(key, d.replicas);
      const own: DemoPod[] = [];
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
        own.push(p);
      }
      this.server.create(deployments, deploymentObject(d, own));
      this.writeReplicaSet(d, own);
    }
  }

  /** One step of the kubelet and the chaos: due pod transitions, now and then a kill or a scale. */
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
  }

  /**
   * The deployment controller's work for one deployment, as the store holds it now (undefined
   * once deleted): like the ReplicaSet controller, creates missing pods and terminates extra ones
   * (newest first) until `spec.replicas` run, then writes the ReplicaSet and the deployment's
   * status. A deleted deployment's ReplicaSet and pods are deleted, as the garbage collector
   * would.
   */
  reconcile(key: string, deployment: V1Deployment | undefined): void {
    this.forgetPodsDeletedElsewhere();
    const [namespace, name] = key.split('/');
    if (deployment === undefined) return this.collectGarbage(key, namespace, name);
    let state = this.deployments.get(key);
    if (state === undefined) {
      // Created by someone else (kubectl create deployment): a ReplicaSet of its own.
      state = { templateHash: this.hash(), crashLoops: false };
      this.deployments.set(key, state);
    }
    const d: DemoDeployment = {
      namespace,
      name,
      uid: deployment.metadata?.uid,
      replicas: deployment.spec?.replicas ?? 1,
      image: deployment.spec?.template?.spec?.containers?.[0]?.image ?? 'busybox',
      templateHash: state.templateHash,
      crashLoops: state.crashLoops,
      createdAt: Date.parse(String(deployment.metadata?.creationTimestamp ?? '')) || this.now(),
    };
    const live = this.podsOf(namespace, name).filter((p) => !p.terminating);
    for (let i = live.length; i < d.replicas; i++) {
      const p = this.newPod(d, this.now());
      this.server.create(pods, podObject(p));
      this.schedule(p, 800, 2_000);
    }
    const extra = live
      .sort((a, b) => b.createdAt - a.createdAt)
      .slice(0, Math.max(0, live.length - d.replicas));
    for (const p of extra) this.terminate(p);
    const own = this.podsOf(namespace, name);
    this.writeReplicaSet(d, own);
    this.writeStatus(key, deploymentStatus(d.replicas, own));
  }

  private collectGarbage(key: string, namespace: string, name: string): void {
    for (const p of this.podsOf(namespace, name)) {
      this.forget(p);
      this.server.delete(pods, namespace, p.name);
    }
    const state = this.deployments.get(key);
    if (state) {
      this.server.delete(replicasets, namespace, `${name}-${state.templateHash}`);
      this.written.delete(`replicasets/${namespace}/${name}-${state.templateHash}`);
    }
    this.written.delete(`status/${key}`);
    this.deployments.delete(key);
    this.scaledTo.delete(key);
  }

  private advance(p: DemoPod): void {
    if (p.terminating) {
      this.forget(p);
      this.server.delete(pods, p.namespace, p.name);
      return;
    }
    const crashLoops = this.deployments.get(`${p.namespace}/${p.deployment}`)?.crashLoops;
    switch (p.stage) {
      case 'Pending':
        p.stage = 'ContainerCreating';
        p.node = this.pick(NODES);
        p.startedAt = this.now();
        this.schedule(p, 1_500, 3_500);
        break;
      case 'ContainerCreating':
        p.stage = 'Running';
        if (crashLoops) this.schedule(p, 2_000, 4_000);
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
  }

  /**
   * Pods deleted from outside (`kubectl delete pod`) are forgotten, so that the deployment
   * replaces them, as the ReplicaSet controller would, rather than the simulation tripping over
   * a pod the server no longer has. The server's own list is the truth here: the simulation
   * runs inside the server's process, as the kubelet's view of its node would be.
   */
  private forgetPodsDeletedElsewhere(): void {
    const onServer = new Set(
      this.server.objects(pods).map((p) => `${p.metadata?.namespace}/${p.metadata?.name}`),
    );
    for (const [key, p] of this.pods) if (!onServer.has(key)) this.forget(p);
  }

  private forget(p: DemoPod): void {
    this.pods.delete(this.key(p));
    this.due.delete(this.key(p));
  }

  private killSomePod(): void {
    const alive = [...this.pods.values()].filter((p) => !p.terminating && p.stage === 'Running');
    if (alive.length > 0) this.terminate(this.pick(alive));
  }

  /**
   * Scales a deployment by one, through the API as `kubectl scale` would (a new generation), but
   * never one whose replicas someone else set: what the user typed stays.
   */
  private scaleSomeDeployment(): void {
    const ours = [...this.scaledTo].filter(([key, replicas]) => {
      const [namespace, name] = key.split('/');
      return this.server.get(deployments, namespace, name)?.spec?.replicas === replicas;
    });
    if (ours.length === 0) return;
    const [key, replicas] = this.pick(ours);
    const [namespace, name] = key.split('/');
    const current = this.server.get(deployments, namespace, name)!;
    const up = replicas <= 1 || (replicas < 5 && this.random() < 0.5);
    const scaled = replicas + (up ? 1 : -1);
    this.scaledTo.set(key, scaled);
    const generation = (current.metadata?.generation ?? 1) + 1;
    this.server.update(deployments, {
      ...current,
      metadata: { ...current.metadata, generation },
      spec: { ...current.spec!, replicas: scaled },
    });
  }

  private terminate(p: DemoPod): void {
    p.terminating = true;
    this.server.update(pods, podObject(p));
    this.schedule(p, 1_000, 2_500);
  }

  /** Writes the deployment's ReplicaSet when its spec or status changed. */
  private writeReplicaSet(d: DemoDeployment, own: readonly DemoPod[]): void {
    const rs = replicaSetObject(d, own);
    const key = `replicasets/${d.namespace}/${rs.metadata?.name}`;
    const json = JSON.stringify([rs.spec, rs.status]);
    const before = this.written.get(key);
    if (before === json) return;
    this.written.set(key, json);
    if (this.server.get(replicasets, d.namespace, rs.metadata!.name!) === undefined) {
      this.server.create(replicasets, rs);
    } else this.server.update(replicasets, rs);
  }

  /** Writes a deployment's status when it changed, leaving its spec as it is on the server. */
  private writeStatus(key: string, status: V1Deployment['status']): void {
    const json = JSON.stringify(status);
    if (this.written.get(`status/${key}`) === json) return;
    const [namespace, name] = key.split('/');
    const current = this.server.get(deployments, namespace, name);
    if (current === undefined) return;
    this.written.set(`status/${key}`, json);
    this.server.update(deployments, { ...current, status });
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

  private podsOf(namespace: string, deployment: string): DemoPod[] {
    return [...this.pods.values()].filter(
      (p) => p.namespace === namespace && p.deployment === deployment,
    );
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
