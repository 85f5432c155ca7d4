// The pods the store benchmark feeds: shaped like a real Deployment's pod, about 2.3 KB of JSON.
/** Pod number `i` at `resourceVersion`, as the API server sends it (about 2.3 KB of JSON). */
export function podJson(i: number, resourceVersion: number): string {
  const name = `web-${(i * 2654435761) % 1e9}-${i}`;
  const namespace = `team-${i % 40}`;
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace,
      uid: `3f1c${i.toString(16).padStart(8, '0')}-8a4e-4b6f-9d2c-5e7a1b3c9d0f`,
      resourceVersion: String(resourceVersion),
      creationTimestamp: '2026-11-29T18:00:00Z',
      labels: { app: 'web', 'pod-template-hash': '7d9f8c6b5', tier: 'frontend' },
      annotations: { 'kubectl.kubernetes.io/restartedAt': '2026-11-29T17:59:00Z' },
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          name: 'web-7d9f8c6b5',
          uid: '9b2d4f6a-1c3e-4a5b-8d7f-0e1a2b3c4d5e',
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: {
      containers: [
        {
          name: 'web',
          image: 'registry.example.com/team/web:1.27.3',
          ports: [{ containerPort: 8080, protocol: 'TCP' }],
          env: [
            { name: 'LOG_LEVEL', value: 'info' },
            { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
          ],
          resources: {
            requests: { cpu: '100m', memory: '128Mi' },
            limits: { cpu: '500m', memory: '256Mi' },
          },
          volumeMounts: [
            {
              name: 'kube-api-access',
              mountPath: '/var/run/secrets/kubernetes.io/serviceaccount',
              readOnly: true,
            },
          ],
          readinessProbe: { httpGet: { path: '/ready', port: 8080 }, periodSeconds: 10 },
        },
      ],
      nodeName: `node-${i % 200}`,
      serviceAccountName: 'default',
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 30,
      volumes: [{ name: 'kube-api-access', projected: { defaultMode: 420, sources: [] } }],
      tolerations: [
        { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' },
      ],
    },
    status: {
      phase: 'Running',
      hostIP: `10.0.${i % 200}.1`,
      podIP: `10.244.${(i >> 8) % 256}.${i % 256}`,
      startTime: '2026-11-29T18:00:01Z',
      conditions: ['Initialized', 'Ready', 'ContainersReady', 'PodScheduled'].map((type) => ({
        type,
        status: 'True',
        lastTransitionTime: '2026-11-29T18:00:05Z',
      })),
      containerStatuses: [
        {
          name: 'web',
          ready: true,
          restartCount: 0,
          image: 'registry.example.com/team/web:1.27.3',
          imageID: 'registry.example.com/team/web@sha256:' + 'ab12'.repeat(16),
          containerID: 'containerd://' + 'cd34'.repeat(16),
          started: true,
          state: { running: { startedAt: '2026-11-29T18:00:03Z' } },
        },
      ],
      qosClass: 'Burstable',
    },
  });
}
