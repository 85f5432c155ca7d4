import { Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * How many sockets this process holds open to 127.0.0.1:`port` as a client: the active handles
 * (what keeps the event loop alive) that are sockets whose remote end is that port.
 */
export function clientSocketsTo(port: number): number {
  const handles = (process as unknown as { _getActiveHandles(): unknown[] })._getActiveHandles();
  return handles.filter((h) => h instanceof Socket && !h.destroyed && h.remotePort === port).length;
}

/** Every active handle, counted by constructor name (Socket, Timeout, Server...). */
export function activeHandles(): Record<string, number> {
  const handles = (process as unknown as { _getActiveHandles(): unknown[] })._getActiveHandles();
  const counts: Record<string, number> = {};
  for (const h of handles) {
    const name = (h as object | null)?.constructor?.name ?? typeof h;
    counts[name] = (counts[name] ?? 0) + 1;
  }
  return counts;
}

/** Polls `condition` every 10 ms until it holds or `timeoutMs` passed; whether it held. */
export async function waitUntil(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  for (let i = 0; i < 1_000_000; i++) {
    if (condition()) return true;
    if (Date.now() >= until) return false;
    await sleep(10);
  }
  return condition();
}
