/// <reference lib="dom" />
// The page of spec/browser/inChromium.browser.spec.ts, bundled from the browser entry: the
// recommended pipeline into a store, with hooks for the spec on `window.kubeRx`.
import type { Subscription } from 'rxjs';
import { pods, resilientWatch, toStore, type LifecycleEvent } from '../../src/browser.js';

/** What the spec reads of the page. */
export interface PageState {
  synced: boolean;
  /** `namespace/name@resourceVersion`, sorted. */
  objects: string[];
  lifecycle: string[];
  error?: string;
}

const state: PageState = { synced: false, objects: [], lifecycle: [] };
let subscription: Subscription | undefined;

const kubeRx = {
  start(server: string, token: string): void {
    const cluster = {
      resolve: async () => ({ server, headers: { authorization: `Bearer ${token}` } }),
    };
    subscription = resilientWatch(
      cluster,
      pods,
      { namespace: 'default' },
      {
        bookmarks: { idleTimeout: 10_000 },
        onLifecycle: (event: LifecycleEvent) => state.lifecycle.push(event.type),
      },
    )
      .pipe(toStore())
      .subscribe({
        next: (store) => {
          state.synced = store.synced;
          state.objects = [...store.values()]
            .map(
              (pod) =>
                `${pod.metadata?.namespace}/${pod.metadata?.name}@${pod.metadata?.resourceVersion}`,
            )
            .sort();
        },
        error: (error: Error) => (state.error = `${error.name}: ${error.message}`),
      });
  },
  /** Unsubscribes; returns when (Date.now()) it did. */
  stop(): number {
    subscription?.unsubscribe();
    return Date.now();
  },
  state: (): PageState => state,
};

(globalThis as unknown as { kubeRx: typeof kubeRx }).kubeRx = kubeRx;
