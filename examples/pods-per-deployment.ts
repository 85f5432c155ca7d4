/**
 * Many resources, one store: which pods belong to which deployment, live.
 *
 *   npm run example examples/pods-per-deployment.ts [namespace]
 *
 * Two resumed watches (pods and deployments) are merged into one stream of events tagged with
 * their source, and `toStore()` folds that stream into immutable snapshots: `store('pods')` and
 * `store('deployments')`, consistent with each other, `synced` once both have their initial
 * state. Each snapshot is mapped to a summary; only a summary that changed is logged.
 *
 * In your project, import from 'kube-rx' instead of '../src/index.js'.
 */
import { pathToFileURL } from 'node:url';
import { KubeConfig } from '@kubernetes/client-node';
import type { V1Deployment, V1LabelSelector, V1Pod } from '@kubernetes/client-node';
import { distinctUntilChanged, filter, lastValueFrom, map, takeUntil, tap } from 'rxjs';
import {
  deployments,
  matchesLabelSelector,
  mergeWatches,
  pods,
  resilientWatch,
  toStore,
} from '../src/index.js';
import type { Store } from '../src/index.js';
import type { ExampleOptions } from './first-watch.js';
import { aborted } from './resilient-watch.js';

/** Options of this example. */
export interface PodsPerDeploymentOptions extends ExampleOptions {
  /** Only this namespace (default: all namespaces). */
  namespace?: string;
}

/** `namespace/name` of each deployment, with the names of its pods, sorted. */
export type PodsPerDeployment = Map<string, string[]>;

/**
 * Whether a Deployment's selector selects these labels. `matchesLabelSelector` reads selectors as
 * kube does, where an empty one selects everything; a Deployment's selects nothing instead (its
 * controller refuses to adopt every pod), so an empty or missing one is checked first.
 */
export function selects(
  selector: V1LabelSelector | undefined,
  labels: Record<string, string> = {},
): boolean {
  const { matchLabels = {}, matchExpressions = [] } = selector ?? {};
  if (Object.keys(matchLabels).length === 0 && matchExpressions.length === 0) return false;
  return matchesLabelSelector(selector, labels);
}

/**
 * The deployment (`namespace/name`) a pod belongs to, or undefined:
 * - a pod controlled by a ReplicaSet belongs to the deployment the ReplicaSet is named after
 *   (the Deployment controller names them `{deployment}-{pod-template-hash}`);
 * - a pod controlled by anything else (StatefulSet, Job...) belongs to no deployment;
 * - a pod without a controller belongs to the deployment of its namespace whose selector
 *   matches its labels.
 */
export function deploymentOf(pod: V1Pod, deploymentStore: Store<V1Deployment>): string | undefined {
  const namespace = pod.metadata?.namespace ?? '';
  const controller = pod.metadata?.ownerReferences?.find((owner) => owner.controller);
  if (controller) {
    if (controller.kind !== 'ReplicaSet') return undefined;
    const dash = controller.name.lastIndexOf('-');
    if (dash <= 0) return undefined; // not named {deployment}-{hash}: not a Deployment's
    const name = controller.name.slice(0, dash);
    return deploymentStore.get(namespace, name) ? `${namespace}/${name}` : undefined;
  }
  const owner = deploymentStore
    .values()
    .find(
      (d) => d.metadata?.namespace === namespace && selects(d.spec?.selector, pod.metadata?.labels),
    );
  return owner && `${namespace}/${owner.metadata?.name}`;
}

/** Groups the pods of a store under their deployments (every deployment, even without pods). */
export function podsPerDeployment(
  podStore: Store<V1Pod>,
  deploymentStore: Store<V1Deployment>,
): PodsPerDeployment {
  const result: PodsPerDeployment = new Map();
  for (const d of deploymentStore.values())
    result.set(`${d.metadata?.namespace}/${d.metadata?.name}`, []);
  for (const pod of podStore.values()) {
    const owner = deploymentOf(pod, deploymentStore);
    if (owner) result.get(owner)?.push(pod.metadata?.name ?? '');
  }
  return result;
}

/** `default/web 2: web-1 web-2 | default/api 0: -` */
export function describeSummary(summary: PodsPerDeployment): string {
  if (summary.size === 0) return 'no deployments';
  return [...summary]
    .map(([key, names]) => `${key} ${names.length}: ${names.join(' ') || '-'}`)
    .join(' | ');
}

/**
 * Keeps a live map of pods per deployment, logging it each time it changes once both watches
 * are synced, until `signal` aborts. Resolves with the last map.
 */
export function main(
  kc: KubeConfig,
  options: PodsPerDeploymentOptions = {},
): Promise<PodsPerDeployment> {
  const { namespace, signal, log = console.log } = options;
  const watchOptions = { namespace }; // undefined: every namespace
  // Each: heartbeats (a silent connection is a dead one), then list, watch, resume and relist.
  const summaries$ = mergeWatches({
    pods: resilientWatch(kc, pods, watchOptions),
    deployments: resilientWatch(kc, deployments, watchOptions),
  }).pipe(
    // Naming the sources makes `synced` wait for both, even one slow to send its first event.
    toStore({ sources: ['pods', 'deployments'] }),
    filter((store) => store.synced),
    map((store) => podsPerDeployment(store.store('pods'), store.store('deployments'))),
    distinctUntilChanged((a, b) => describeSummary(a) === describeSummary(b)),
    takeUntil(aborted(signal)),
    tap((summary) => log(describeSummary(summary))),
  );
  return lastValueFrom(summaries$, { defaultValue: new Map() });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const kc = new KubeConfig();
  kc.loadFromDefault();
  const stop = new AbortController();
  process.once('SIGINT', () => stop.abort());
  await main(kc, { namespace: process.argv[2], signal: stop.signal });
}
