// The watch stream every consumer of watch.bench.mjs reads: realistic pod events of about 5 KB
// (metadata with labels, annotations, ownerReferences and managedFields; two containers with
// env, ports, resources, probes and mounts; status with conditions and containerStatuses).
//
// PODS distinct pods; event i is about pod i % PODS: ADDED the first time, MODIFIED after that,
// with resourceVersion FIRST_VERSION + 1 + i. Versions have a fixed width (10 digits), so the
// server patches them into pre-built bytes instead of serialising anything per event.
//
// BENCH_STREAM=cycle (watch.bench.mjs --stream=cycle) is the second layout of issue 20: each pod
// cycles ADDED, 8x MODIFIED, DELETED (then is re-created under the same name), every pod one step
// per turn: event i is step floor(i / PODS) % CYCLE_LENGTH of pod i % PODS.

/**
 * How many distinct pods the stream is about (what a store or an informer cache holds): 1000 by
 * default, BENCH_PODS in the environment otherwise (watch.bench.mjs --pods=N sets it for every
 * process of a run).
 */
export const PODS = Number(process.env.BENCH_PODS ?? 1000);
if (!(Number.isInteger(PODS) && PODS > 0)) throw new Error(`BENCH_PODS must be a positive integer`);
/** The list's resourceVersion; event i carries FIRST_VERSION + 1 + i. */
export const FIRST_VERSION = 1_000_000_000;
/** The width of every resourceVersion in the stream. */
export const VERSION_DIGITS = 10;

const PLACEHOLDER = '9'.repeat(VERSION_DIGITS);

/** The layout of the stream: 'growing' (ADDED once, then MODIFIED) or 'cycle' (see above). */
export const STREAM = process.env.BENCH_STREAM ?? 'growing';
if (STREAM !== 'growing' && STREAM !== 'cycle') throw new Error(`unknown BENCH_STREAM ${STREAM}`);
/** The events of one pod's cycle in the 'cycle' layout: ADDED, 8x MODIFIED, DELETED. */
export const CYCLE_LENGTH = 10;

/** The type of event `i` (0-based) in this layout. */
export function eventTypeOf(i) {
  if (STREAM === 'growing') return i < PODS ? 'ADDED' : 'MODIFIED';
  const step = Math.floor(i / PODS) % CYCLE_LENGTH;
  return step === 0 ? 'ADDED' : step === CYCLE_LENGTH - 1 ? 'DELETED' : 'MODIFIED';
}

/** How many pods exist after the first `events` events: what a store holds then. */
export function podsAfter(events) {
  if (STREAM === 'growing') return Math.min(events, PODS);
  const step = Math.floor(events / PODS) % CYCLE_LENGTH;
  const partial = events % PODS;
  // In a turn of ADDED, pods appear one by one; in a turn of DELETED they go one by one.
  if (step === 0) return partial;
  if (step === CYCLE_LENGTH - 1) return PODS - partial;
  return PODS;
}

/** The resourceVersion of event `i` (0-based). */
export function versionOf(i) {
  return String(FIRST_VERSION + 1 + i);
}

/** A deterministic hex string, so that every run streams exactly the same bytes. */
function hex(seed, length) {
  let state = (seed * 2654435761) >>> 0;
  let out = '';
  while (out.length < length) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    out += state.toString(16).padStart(8, '0');
  }
  return out.slice(0, length);
}

function uid(seed) {
  const h = hex(seed, 32);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

const t0 = Date.UTC(2026, 10, 29, 9, 0, 0);
const time = (seconds) => new Date(t0 + seconds * 1000).toISOString().replace('.000Z', 'Z');

function container(name, image, port, i) {
  const app = name === 'app';
  const env = [
    { name: 'POD_NAME', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } } },
  ];
  if (app) {
    env.push(
      {
        name: 'POD_NAMESPACE',
        valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } },
      },
      { name: 'LOG_LEVEL', value: 'info' },
    );
  }
  return {
    name,
    image,
    args: app
      ? ['--listen=:8080', '--metrics=:9090', `--shard=${i % 16}`]
      : ['--config=/etc/proxy/envoy.yaml'],
    ports: app
      ? [
          { name: 'http', containerPort: port, protocol: 'TCP' },
          { name: 'metrics', containerPort: port + 1010, protocol: 'TCP' },
        ]
      : [{ name: 'proxy', containerPort: port, protocol: 'TCP' }],
    env,
    resources: app
      ? { limits: { cpu: '1', memory: '512Mi' }, requests: { cpu: '250m', memory: '256Mi' } }
      : { requests: { cpu: '50m', memory: '64Mi' } },
    volumeMounts: [
      { name: 'config', mountPath: `/etc/${name}`, readOnly: true },
      {
        name: `kube-api-access-${hex(i + 7, 5)}`,
        mountPath: '/var/run/secrets/kubernetes.io/serviceaccount',
        readOnly: true,
      },
    ],
    livenessProbe: app
      ? {
          httpGet: { path: '/healthz', port, scheme: 'HTTP' },
          initialDelaySeconds: 10,
          timeoutSeconds: 2,
          periodSeconds: 10,
          successThreshold: 1,
          failureThreshold: 3,
        }
      : undefined,
    readinessProbe: app
      ? {
          httpGet: { path: '/readyz', port, scheme: 'HTTP' },
          timeoutSeconds: 1,
          periodSeconds: 5,
          successThreshold: 1,
          failureThreshold: 3,
        }
      : undefined,
    terminationMessagePath: '/dev/termination-log',
    terminationMessagePolicy: 'File',
    imagePullPolicy: 'IfNotPresent',
  };
}

function containerStatus(name, image, i) {
  return {
    name,
    state: { running: { startedAt: time(40 + (i % 30)) } },
    lastState: {},
    ready: true,
    restartCount: i % 3,
    image,
    imageID: `${image.split(':')[0]}@sha256:${hex(i + name.length, 64)}`,
    containerID: `containerd://${hex(i * 31 + name.length, 64)}`,
    started: true,
  };
}

/** Pod `i` with the placeholder resourceVersion. */
function pod(i) {
  const namespace = `team-${i % 20}`;
  const hash = hex(i % 50, 10);
  const name = `checkout-${hash}-${hex(i, 5)}`;
  const appImage = `registry.example.com/shop/checkout:v2.${i % 7}.${i % 13}`;
  const proxyImage = 'docker.io/envoyproxy/envoy:v1.31.2';
  return {
    kind: 'Pod',
    apiVersion: 'v1',
    metadata: {
      name,
      generateName: `checkout-${hash}-`,
      namespace,
      uid: uid(i),
      resourceVersion: PLACEHOLDER,
      creationTimestamp: time(i % 600),
      labels: {
        app: 'checkout',
        'app.kubernetes.io/name': 'checkout',
        'app.kubernetes.io/part-of': 'shop',
        'app.kubernetes.io/version': `2.${i % 7}.${i % 13}`,
        'pod-template-hash': hash,
        tier: 'backend',
      },
      annotations: {
        'kubectl.kubernetes.io/restartedAt': time(0),
        'prometheus.io/scrape': 'true',
        'prometheus.io/port': '9090',
      },
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          name: `checkout-${hash}`,
          uid: uid(i % 50),
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
      managedFields: [
        {
          manager: 'kube-controller-manager',
          operation: 'Update',
          apiVersion: 'v1',
          time: time(i % 600),
          fieldsType: 'FieldsV1',
          fieldsV1: {
            'f:metadata': {
              'f:generateName': {},
              'f:labels': { '.': {}, 'f:app': {}, 'f:pod-template-hash': {}, 'f:tier': {} },
              'f:ownerReferences': { '.': {}, [`k:{"uid":"${uid(i % 50)}"}`]: {} },
            },
            'f:spec': {
              'f:containers': { 'k:{"name":"app"}': { '.': {}, 'f:image': {}, 'f:name': {} } },
              'f:restartPolicy': {},
              'f:terminationGracePeriodSeconds': {},
            },
          },
        },
        {
          manager: 'kubelet',
          operation: 'Update',
          apiVersion: 'v1',
          time: time(60 + (i % 600)),
          fieldsType: 'FieldsV1',
          fieldsV1: {
            'f:status': {
              'f:conditions': {
                'k:{"type":"ContainersReady"}': { '.': {}, 'f:status': {}, 'f:type': {} },
                'k:{"type":"Ready"}': { '.': {}, 'f:status': {}, 'f:type': {} },
              },
              'f:containerStatuses': {},
              'f:hostIP': {},
              'f:phase': {},
              'f:podIP': {},
              'f:startTime': {},
            },
          },
          subresource: 'status',
        },
      ],
    },
    spec: {
      volumes: [
        { name: 'config', configMap: { name: 'checkout-config', defaultMode: 420 } },
        {
          name: `kube-api-access-${hex(i + 7, 5)}`,
          projected: {
            sources: [{ serviceAccountToken: { expirationSeconds: 3607, path: 'token' } }],
            defaultMode: 420,
          },
        },
      ],
      containers: [container('app', appImage, 8080, i), container('proxy', proxyImage, 15001, i)],
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 30,
      dnsPolicy: 'ClusterFirst',
      serviceAccountName: 'checkout',
      nodeName: `ip-10-0-${(i >> 4) & 255}-${i & 15}.eu-west-1.compute.internal`,
      securityContext: { runAsUser: 1000, fsGroup: 2000 },
      schedulerName: 'default-scheduler',
      priority: 0,
      enableServiceLinks: true,
      preemptionPolicy: 'PreemptLowerPriority',
    },
    status: {
      phase: 'Running',
      conditions: ['Initialized', 'Ready', 'ContainersReady', 'PodScheduled'].map((type, k) => ({
        type,
        status: 'True',
        lastProbeTime: null,
        lastTransitionTime: time(30 + k * 5 + (i % 60)),
      })),
      hostIP: `10.0.${(i >> 4) & 255}.${i & 15}`,
      podIP: `10.42.${(i >> 8) & 255}.${i & 255}`,
      podIPs: [{ ip: `10.42.${(i >> 8) & 255}.${i & 255}` }],
      startTime: time(20 + (i % 60)),
      containerStatuses: [
        containerStatus('app', appImage, i),
        containerStatus('proxy', proxyImage, i),
      ],
      qosClass: 'Burstable',
    },
  };
}

/**
 * The JSON of every pod, each with the byte offset of its resourceVersion digits: what the
 * server patches per event.
 */
export function podTemplates() {
  const templates = [];
  for (let i = 0; i < PODS; i++) {
    const json = Buffer.from(JSON.stringify(pod(i)), 'utf8');
    const at = json.indexOf(`"resourceVersion":"${PLACEHOLDER}"`);
    if (at === -1 || json.indexOf(PLACEHOLDER, at + 20 + VERSION_DIGITS) !== -1) {
      throw new Error('the pod template must carry its resourceVersion placeholder once');
    }
    templates.push({ json, versionAt: at + '"resourceVersion":"'.length });
  }
  return templates;
}

/** The watch line of event `i` as a string (the JSON.parse-alone consumer's input). */
export function eventLine(templates, i) {
  const { json, versionAt } = templates[i % PODS];
  const type = eventTypeOf(i);
  const object =
    json.toString('latin1', 0, versionAt) +
    versionOf(i) +
    json.toString('latin1', versionAt + VERSION_DIGITS);
  return `{"type":"${type}","object":${object}}`;
}
