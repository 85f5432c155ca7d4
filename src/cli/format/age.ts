/**
 * How long ago `timestamp` was, the way kubectl prints ages (`45s`, `3m12s`, `5h`, `12d`...):
 * short, and precise only while precision matters. `<unknown>` when there is no timestamp.
 *
 * @example
 * formatAge('2024-01-01T00:00:00Z', Date.parse('2024-01-01T00:03:12Z')); // '3m12s'
 */
export function formatAge(timestamp: string | Date | undefined, now: number = Date.now()): string {
  if (timestamp === undefined) return '<unknown>';
  const at = timestamp instanceof Date ? timestamp.getTime() : Date.parse(timestamp);
  if (Number.isNaN(at)) return '<unknown>';
  return humanDuration(Math.max(0, now - at));
}

/**
 * A duration in ms, as kubectl's `HumanDuration` writes it.
 *
 * @example
 * humanDuration(90_000); // '90s'
 */
export function humanDuration(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 10) return `${minutes}m${seconds % 60 ? `${seconds % 60}s` : ''}`;
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 8) return `${hours}h${minutes % 60 ? `${minutes % 60}m` : ''}`;
  if (hours < 48) return `${hours}h`;
  const days = Math.floor(hours / 24);
  if (days < 8) return `${days}d${hours % 24 ? `${hours % 24}h` : ''}`;
  if (days < 365 * 2) return `${days}d`;
  return `${Math.floor(days / 365)}y`;
}
