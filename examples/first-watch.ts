/**
 * Your first watch: every change to the pods of one namespace, as it happens.
 *
 *   npm run example examples/first-watch.ts            # namespace "default" of your current context
 *   npm run example examples/first-watch.ts kube-system
 *
 * `fromWatch` is a cold Observable: subscribing sends one `GET ...?watch=true`, each line the
 * server streams becomes a `WatchEvent`, and unsubscribing (or aborting `signal`) closes the
 * connection. Failures are values too: a 403 arrives as one ERROR event, not as an exception.
 * It completes when the server ends the watch; see resilient-watch.ts for a watch that never ends.
 *
 * In your project, import from the package: `import { fromWatch, pods } from 'kube-rx';`.
 * The examples import the sources (`../src/index.js`) so that `npm test` checks them without a build.
 */
import { pathToFileURL } from 'node:url';
import { KubeConfig } from '@kubernetes/client-node';
import type { V1Pod } from '@kubernetes/client-node';
import { count, lastValueFrom, tap } from 'rxjs';
import { fromWatch, pods } from '../src/index.js';
import type { WatchEvent } from '../src/index.js';

/** What every example's `main` accepts besides its cluster. */
export interface ExampleOptions {
  /** Stops the example (Ctrl-C when run from the command line). */
  signal?: AbortSignal;
  /** Where the example writes its output (default `console.log`). */
  log?: (line: string) => void;
}

/** Options of this example. */
export interface FirstWatchOptions extends ExampleOptions {
  /** The namespace to watch (default `'default'`). */
  namespace?: string;
}

/** One line per event: `ADDED default/web-1 Running (rv 42)`. */
export function describeEvent(event: WatchEvent<V1Pod>): string {
  if (event.type === 'ERROR') {
    const { errorType, statusCode, message } = event.error;
    return `ERROR ${errorType} ${statusCode}: ${message}`;
  }
  const { namespace, name } = event.object.metadata ?? {};
  if (event.type === 'BOOKMARK') return `BOOKMARK (rv ${event.resourceVersion})`;
  const phase = event.object.status?.phase ?? 'Unknown';
  return `${event.type} ${namespace}/${name} ${phase} (rv ${event.resourceVersion})`;
}

/**
 * Watches the pods of a namespace and logs each event, until `signal` aborts or the server ends
 * the watch. Resolves with the number of events seen.
 */
export function main(kc: KubeConfig, options: FirstWatchOptions = {}): Promise<number> {
  const { namespace = 'default', signal, log = console.log } = options;
  // With `signal`, aborting completes the watch quietly and releases its connection.
  return lastValueFrom(
    fromWatch(kc, pods, { namespace, signal }).pipe(
      tap((event) => log(describeEvent(event))),
      count(),
    ),
  );
}

// Run from the command line: watch with the current context of your kubeconfig until Ctrl-C.
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const kc = new KubeConfig();
  kc.loadFromDefault();
  const stop = new AbortController();
  process.once('SIGINT', () => stop.abort());
  const count = await main(kc, { namespace: process.argv[2], signal: stop.signal });
  console.log(`${count} events`);
}
