// Discovery documents as a real API server writes them (trimmed to what resolution reads).

/** `GET /api`. */
export const coreVersions = { kind: 'APIVersions', versions: ['v1'] };

const r = (
  name: string,
  singularName: string,
  kind: string,
  namespaced: boolean,
  shortNames?: string[],
) => ({
  name,
  singularName,
  kind,
  namespaced,
  verbs: ['get', 'list', 'watch'],
  ...(shortNames && { shortNames }),
});

/** `GET /api/v1`. */
export const coreV1 = {
  kind: 'APIResourceList',
  groupVersion: 'v1',
  resources: [
    r('pods', 'pod', 'Pod', true, ['po']),
    { ...r('pods/log', '', 'Pod', true), verbs: ['get'] },
    r('services', 'service', 'Service', true, ['svc']),
    r('events', 'event', 'Event', true, ['ev']),
    r('namespaces', 'namespace', 'Namespace', false, ['ns']),
    r('nodes', 'node', 'Node', false, ['no']),
    r('configmaps', 'configmap', 'ConfigMap', true, ['cm']),
    r('secrets', 'secret', 'Secret', true),
  ],
};

/** `GET /apis`. */
export const groupList = {
  kind: 'APIGroupList',
  apiVersion: 'v1',
  groups: [
    {
      name: 'apps',
      versions: [{ groupVersion: 'apps/v1', version: 'v1' }],
      preferredVersion: { groupVersion: 'apps/v1', version: 'v1' },
    },
    {
      name: 'events.k8s.io',
      versions: [{ groupVersion: 'events.k8s.io/v1', version: 'v1' }],
      preferredVersion: { groupVersion: 'events.k8s.io/v1', version: 'v1' },
    },
    {
      name: 'autoscaling',
      versions: [
        { groupVersion: 'autoscaling/v1', version: 'v1' },
        { groupVersion: 'autoscaling/v2', version: 'v2' },
      ],
      preferredVersion: { groupVersion: 'autoscaling/v2', version: 'v2' },
    },
    {
      name: 'stable.example.com',
      versions: [{ groupVersion: 'stable.example.com/v1', version: 'v1' }],
      preferredVersion: { groupVersion: 'stable.example.com/v1', version: 'v1' },
    },
    {
      name: 'toys.example.com',
      versions: [{ groupVersion: 'toys.example.com/v1', version: 'v1' }],
      preferredVersion: { groupVersion: 'toys.example.com/v1', version: 'v1' },
    },
    {
      name: 'metrics.k8s.io',
      versions: [{ groupVersion: 'metrics.k8s.io/v1beta1', version: 'v1beta1' }],
      preferredVersion: { groupVersion: 'metrics.k8s.io/v1beta1', version: 'v1beta1' },
    },
  ],
};

/** `GET /apis/{group}/{version}` (metrics.k8s.io is missing: its aggregated API is down). */
export const groupVersions: Record<string, unknown> = {
  'apps/v1': {
    kind: 'APIResourceList',
    groupVersion: 'apps/v1',
    resources: [
      r('deployments', 'deployment', 'Deployment', true, ['deploy']),
      r('replicasets', 'replicaset', 'ReplicaSet', true, ['rs']),
      r('statefulsets', 'statefulset', 'StatefulSet', true, ['sts']),
    ],
  },
  'events.k8s.io/v1': {
    kind: 'APIResourceList',
    groupVersion: 'events.k8s.io/v1',
    resources: [r('events', 'event', 'Event', true, ['ev'])],
  },
  'autoscaling/v1': {
    kind: 'APIResourceList',
    groupVersion: 'autoscaling/v1',
    resources: [
      r('horizontalpodautoscalers', 'horizontalpodautoscaler', 'HorizontalPodAutoscaler', true, [
        'hpa',
      ]),
    ],
  },
  'autoscaling/v2': {
    kind: 'APIResourceList',
    groupVersion: 'autoscaling/v2',
    resources: [
      r('horizontalpodautoscalers', 'horizontalpodautoscaler', 'HorizontalPodAutoscaler', true, [
        'hpa',
      ]),
    ],
  },
  'stable.example.com/v1': {
    kind: 'APIResourceList',
    groupVersion: 'stable.example.com/v1',
    resources: [
      r('crontabs', 'crontab', 'CronTab', true, ['ct']),
      r('widgets', 'widget', 'Widget', false),
    ],
  },
  'toys.example.com/v1': {
    kind: 'APIResourceList',
    groupVersion: 'toys.example.com/v1',
    resources: [r('widgets', 'widget', 'Widget', true, ['wd'])],
  },
};
