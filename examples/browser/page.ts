/// <reference lib="dom" />
/**
 * kube-rx in a page: a live table of pods, fed by `resilientWatch` + `toStore`, the same
 * pipeline as in Node. Bundled from the browser entry and served by
 *
 *   npm run example:browser
 *
 * In your project, import from 'kube-rx' (bundlers pick its `browser` condition) instead of
 * '../../src/browser.js'. There is no KubeConfig in a page: the cluster is a ClusterConnection,
 * here the API server given as `?server=` (the demo's), or this page's own origin, where a
 * same-origin proxy adds the credentials: `kubectl proxy --www=<dir of the bundled page>` serves
 * the page at /static/ and the API at /.
 */
import {
  pods,
  resilientWatch,
  toStore,
  type ClusterConnection,
  type LifecycleEvent,
  type Store,
} from '../../src/browser.js';
import type { V1Pod } from '@kubernetes/client-node';

const server = new URLSearchParams(location.search).get('server') ?? location.origin;
const cluster: ClusterConnection = {
  name: 'page',
  // Called for every request: a page would put a fresh token here (headers: { authorization }).
  resolve: async () => ({ server }),
};

const status = document.getElementById('status')!;
const rows = document.getElementById('pods')!;

function showLifecycle(event: LifecycleEvent): void {
  status.textContent =
    event.type === 'backoff'
      ? `reconnecting in ${Math.round(event.delay)} ms (${event.error.errorType})`
      : event.type;
}

/** One row per pod; textContent only, so nothing the server sends becomes markup. */
function render(store: Store<V1Pod>): void {
  const fresh = [...store.values()].map((pod) => {
    const row = document.createElement('tr');
    for (const text of [
      pod.metadata?.namespace ?? '',
      pod.metadata?.name ?? '',
      pod.status?.phase ?? '',
      pod.spec?.nodeName ?? '',
      pod.metadata?.resourceVersion ?? '',
    ]) {
      const cell = document.createElement('td');
      cell.textContent = text;
      row.append(cell);
    }
    return row;
  });
  rows.replaceChildren(...fresh);
  status.textContent = `${store.synced ? 'live' : 'listing'}: ${store.size} pods at resourceVersion ${store.resourceVersion}`;
}

const subscription = resilientWatch(cluster, pods, {}, { onLifecycle: showLifecycle })
  .pipe(toStore())
  .subscribe({
    next: render,
    error: (error: Error) => (status.textContent = `stopped: ${error.message}`),
  });

// Leaving the page closes the watch (the fetch is aborted, the server sees the socket close).
addEventListener('pagehide', () => subscription.unsubscribe());
