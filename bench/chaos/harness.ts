import { setTimeout as sleep } from 'node:timers/promises';
import { tap, type Observable, type Subscription } from 'rxjs';
import { mergeWatches } from '../../src/index.js';
import type { LifecycleEvent } from '../../src/index.js';
import { toStore } from '../../src/index.js';
import type { MergedStore } from '../../src/index.js';
import type { KubernetesObject, WatchEvent } from '../../src/types.js';
import type { FakeKubeApiServer } from '../../src/testing/index.js';
import type { DeliveryChecker } from './delivery.js';
import type { FaultInjection, FaultKind } from './faults.js';
import { clientSocketsTo, waitUntil } from './sockets.js';

// What the chaos run (chaos.ts) and the soak (../soak/soak.ts) do alike: resumed watches into a
// store, mutations and faults on a schedule, waiting for the stores to match the server, and the
// socket check at the end.

/**
 * `mergeWatches(sources)` into `toStore`, every delivered event recorded by `checker`. Each store
 * goes to `onStore`; an error, or completion (a resumed pipeline never ends), to `onFailure`.
 */
export function watchIntoStore(
  sources: Record<string, Observable<WatchEvent>>,
  checker: DeliveryChecker,
  onStore: (store: MergedStore<Record<string, KubernetesObject>>) => void,
  onFailure: (why: string) => void,
): Subscription {
  return mergeWatches(sources)
    .pipe(
      tap((event) => checker.record(event)),
      toStore({ sources: Object.keys(sources) }),
    )
    .subscribe({
      next: (store) => onStore(store as MergedStore<Record<string, KubernetesObject>>),
      error: (error: unknown) => onFailure(describe(error)),
      complete: () => onFailure('the pipeline completed'),
    });
}

/** Counts the lifecycle events of many resumed watches, and knows which of them are connected. */
export class LifecycleTally {
  connections = 0;
  relists = 0;
  expired = 0;
  backoffs = 0;
  /** The errors the watches backed off after, by type and status (e.g. `SYSTEM_ERROR 0`). */
  readonly backoffErrors: Record<string, number> = {};
  readonly disconnects = { closed: 0, tooShort: 0, error: 0 };
  private readonly up = new Map<string, boolean>();

  /** The `onLifecycle` of the watch named `id`. */
  of(id: string): (event: LifecycleEvent) => void {
    return (event) => {
      switch (event.type) {
        case 'connecting':
          this.connections++;
          this.up.set(id, false);
          break;
        case 'connected':
          this.up.set(id, true);
          break;
        case 'disconnected':
          this.up.set(id, false);
          if (event.reason === 'closed') this.disconnects.closed++;
          else if (event.reason === 'too-short') this.disconnects.tooShort++;
          else this.disconnects.error++;
          break;
        case 'backoff': {
          this.backoffs++;
          const why = `${event.error.errorType} ${event.error.statusCode}`;
          this.backoffErrors[why] = (this.backoffErrors[why] ?? 0) + 1;
          break;
        }
        case 'relist-start':
          this.relists++;
          break;
        case 'expired':
          this.expired++;
          break;
      }
    };
  }

  /** How many watches are connected now. */
  get watchesUp(): number {
    let n = 0;
    for (const up of this.up.values()) if (up) n++;
    return n;
  }
}

/** Settings of {@link churn}. */
export interface ChurnSettings {
  durationMs: number;
  mutationEveryMs: number;
  faultEveryMs: number;
  faults: FaultInjection;
  /** Draws the waits between faults (each uniform in [0.5, 1.5] x faultEveryMs). */
  faultRandom: { next(): number };
  /** One mutation step. */
  mutate: () => void;
  /** After each step, with the time since the phase began (progress lines, samples...). */
  afterStep?: (elapsedMs: number) => void;
  /** Ends the phase early (a failed pipeline). */
  stop?: () => boolean;
  log: (line: string) => void;
}

/**
 * The busy phase: a mutation step every `mutationEveryMs` and a fault every `faultEveryMs` or so,
 * for `durationMs`. Resolves with the phase's start time.
 */
export async function churn(settings: ChurnSettings): Promise<number> {
  const { durationMs, mutationEveryMs, faultEveryMs, faults, faultRandom, log } = settings;
  const started = Date.now();
  const end = started + durationMs;
  let nextFault = started + faultEveryMs * (0.5 + faultRandom.next());
  const maxSteps = Math.ceil(durationMs / mutationEveryMs) + 10;
  for (let step = 0; step < maxSteps && Date.now() < end && !settings.stop?.(); step++) {
    settings.mutate();
    if (Date.now() >= nextFault) {
      const kind: FaultKind = await faults.fireNext();
      log(`fault ${kind} at ${((Date.now() - started) / 1000).toFixed(1)}s`);
      nextFault = Date.now() + faultEveryMs * (0.5 + faultRandom.next());
    }
    settings.afterStep?.(Date.now() - started);
    await sleep(mutationEveryMs);
  }
  return started;
}

/**
 * Quiescence: waits until `settled()` (the stores match the server, every watch connected) has
 * held for `settleMs`, polling every `pollMs`, for at most `timeoutMs` or until `failed()`.
 */
export async function quiesce({
  settled,
  failed,
  settleMs,
  timeoutMs,
  pollMs,
}: {
  settled: () => boolean;
  failed: () => boolean;
  settleMs: number;
  timeoutMs: number;
  pollMs: number;
}): Promise<boolean> {
  let stableSince: number | undefined;
  const end = Date.now() + timeoutMs;
  for (let i = 0; i < 100_000 && Date.now() < end && !failed(); i++) {
    if (settled()) {
      stableSince ??= Date.now();
      if (Date.now() - stableSince >= settleMs) return true;
    } else stableSince = undefined;
    await sleep(pollMs);
  }
  return false;
}

/** Sockets still open to `server` once the watches are gone, after waiting up to `waitMs` each. */
export async function socketsLeft(
  server: FakeKubeApiServer,
  waitMs: number,
): Promise<{ server: number; clientHandles: number }> {
  await server.waitForConnections(0, waitMs).catch(() => {});
  await waitUntil(() => clientSocketsTo(server.port) === 0, waitMs);
  return { server: server.openConnections, clientHandles: clientSocketsTo(server.port) };
}

/** The failures both runs judge alike: lost, duplicated or regressed changes, open sockets. */
export function deliveryFailures(report: {
  lost: number;
  duplicates: number;
  regressions: number;
  openSockets: { server: number; clientHandles: number };
}): string[] {
  const failures: string[] = [];
  if (report.lost > 0) failures.push(`${report.lost} lost changes`);
  if (report.duplicates > 0) failures.push(`${report.duplicates} duplicates`);
  if (report.regressions > 0) failures.push(`${report.regressions} events went back in time`);
  if (report.openSockets.server > 0 || report.openSockets.clientHandles > 0) {
    failures.push(
      `sockets left open: ${report.openSockets.server} on the server, ` +
        `${report.openSockets.clientHandles} client handles`,
    );
  }
  return failures;
}

export const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/** A numeric command-line option in [min, max]; anything else ends the process with exit code 2. */
export function numberOption(name: string, text: string, min: number, max: number): number {
  const n = Number(text);
  if (!Number.isFinite(n) || n < min || n > max) {
    console.error(`--${name} must be a number in [${min}, ${max}], not ${JSON.stringify(text)}`);
    process.exit(2);
  }
  return n;
}
