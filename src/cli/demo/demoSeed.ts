// What the demo cluster starts with.
import type { DemoDeployment } from './demoObjects.js';

/** The demo's nodes. */
export const NODES = ['demo-node-1', 'demo-node-2', 'demo-node-3'];
/** The demo's namespaces. */
export const NAMESPACES = ['default', 'shop', 'monitoring'];
/** The demo's deployments as seeded (`checkout` is a bad release: its pods crash-loop). */
export const DEPLOYMENTS: Array<
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
