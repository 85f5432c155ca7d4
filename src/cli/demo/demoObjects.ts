import type {
  V1Deployment,
  V1Namespace,
  V1Node,
  V1Pod,
  V1PodStatus,
  V1ReplicaSet,
} from '@kubernetes/client-node';

/** The life of a simulated pod, in order; a crash-looping pod cycles Running -> Error -> BackOff. */
export type PodStage = 'Pending' | 'ContainerCreating' | 'Running' | 'Error' | 'CrashLoopBackOff';

/** What the simulator knows about one of its pods; the API objects are built from it. */
export interface DemoPod {
  namespace: string;
  name: string;
  deployment: string;
  replicaSet: string;
  templateHash: string;
  image: string;
  stage: PodStage;
  restarts: number;
  node?: string;
  createdAt: number;
  startedAt?: number;
  terminating: boolean;
}

/** A simulated deployment: its spec and the ReplicaSet that owns its pods. */
export interface DemoDeployment {
  namespace: string;
  name: string;
  /** Its uid on the server (default: `uid-deploy-{namespace}-{name}`, given when seeded). */
  uid?: string;
  replicas: number;
  image: string;
  templateHash: string;
  /** Its pods crash after starting, forever (a bad release). */
  crashLoops: boolean;
  createdAt: number;
}

const iso = (ms: number): Date => new Date(ms).toISOString() as unknown as Date;

/** A Namespace object. */
export function namespaceObject(name: string, createdAt: number): V1Namespace {
  return {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name, creationTimestamp: iso(createdAt) },
    status: { phase: 'Active' },
  };
}

/** A Ready Node object. */
export function nodeObject(name: string, createdAt: number): V1Node {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      creationTimestamp: iso(createdAt),
      labels: { 'kubernetes.io/hostname': name },
    },
    status: {
      conditions: [{ type: 'Ready', status: 'True' }],
      nodeInfo: { kubeletVersion: 'v1.31.0' } as NonNullable<V1Node['status']>['nodeInfo'],
    },
  };
}

/** The Deployment object, with a status computed from its pods. */
export function deploymentObject(d: DemoDeployment, pods: readonly DemoPod[]): V1Deployment {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: d.name,
      namespace: d.namespace,
      uid: deploymentUid(d),
      generation: 1,
      labels: { app: d.name },
      creationTimestamp: iso(d.createdAt),
    },
    spec: {
      replicas: d.replicas,
      selector: { matchLabels: { app: d.name } },
      template: {
        metadata: { labels: { app: d.name } },
        spec: { containers: [{ name: d.name, image: d.image }] },
      },
    },
    status: deploymentStatus(d.replicas, pods),
  };
}

/** A deployment's status from its pods, for `replicas` desired. */
export function deploymentStatus(
  replicas: number,
  pods: readonly DemoPod[],
): NonNullable<V1Deployment['status']> {
  const live = pods.filter((p) => !p.terminating);
  const ready = live.filter(isReady).length;
  return {
    replicas: live.length,
    updatedReplicas: live.length,
    readyReplicas: ready,
    availableReplicas: ready,
    unavailableReplicas: Math.max(0, replicas - ready),
  };
}

function deploymentUid(d: DemoDeployment): string {
  return d.uid ?? `uid-deploy-${d.namespace}-${d.name}`;
}

/** The ReplicaSet a deployment's pods belong to (`{deployment}-{hash}`). */
export function replicaSetObject(d: DemoDeployment, pods: readonly DemoPod[]): V1ReplicaSet {
  const live = pods.filter((p) => !p.terminating);
  const ready = live.filter(isReady).length;
  const labels = { app: d.name, 'pod-template-hash': d.templateHash };
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      name: `${d.name}-${d.templateHash}`,
      namespace: d.namespace,
      labels,
      creationTimestamp: iso(d.createdAt),
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          name: d.name,
          uid: deploymentUid(d),
          controller: true,
        },
      ],
    },
    spec: { replicas: d.replicas, selector: { matchLabels: labels } },
    status: { replicas: live.length, readyReplicas: ready, availableReplicas: ready },
  };
}

/** Only a running container is ready (even one that is about to crash again). */
function isReady(p: DemoPod): boolean {
  return p.stage === 'Running' && !p.terminating;
}

/** The Pod object for a simulated pod at its current stage. */
export function podObject(p: DemoPod): V1Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: p.name,
      namespace: p.namespace,
      labels: { app: p.deployment, 'pod-template-hash': p.templateHash },
      creationTimestamp: iso(p.createdAt),
      ...(p.terminating && { deletionTimestamp: iso(Date.now()) }),
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          name: p.replicaSet,
          uid: `uid-rs-${p.namespace}-${p.replicaSet}`,
          controller: true,
        },
      ],
    },
    spec: {
      containers: [{ name: p.deployment, image: p.image }],
      ...(p.node !== undefined && { nodeName: p.node }),
    },
    status: podStatus(p),
  };
}

function podStatus(p: DemoPod): V1PodStatus {
  const started = iso(p.startedAt ?? p.createdAt);
  const base = { name: p.deployment, image: p.image, imageID: '', restartCount: p.restarts };
  switch (p.stage) {
    case 'Pending':
      return {
        phase: 'Pending',
        conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable' }],
      };
    case 'ContainerCreating':
      return {
        phase: 'Pending',
        startTime: started,
        containerStatuses: [
          { ...base, ready: false, state: { waiting: { reason: 'ContainerCreating' } } },
        ],
      };
    case 'Running':
      return {
        phase: 'Running',
        startTime: started,
        containerStatuses: [
          { ...base, ready: true, started: true, state: { running: { startedAt: started } } },
        ],
      };
    case 'Error':
      return {
        phase: 'Running',
        startTime: started,
        containerStatuses: [
          { ...base, ready: false, state: { terminated: { exitCode: 1, reason: 'Error' } } },
        ],
      };
    case 'CrashLoopBackOff':
      return {
        phase: 'Running',
        startTime: started,
        containerStatuses: [
          {
            ...base,
            ready: false,
            state: {
              waiting: {
                reason: 'CrashLoopBackOff',
                message: 'back-off restarting failed container',
              },
            },
          },
        ],
      };
  }
}
