import type { Reply } from './protocol.js';
import { badRequest } from './statusBody.js';

/** Lines kept per pod; older lines are dropped. */
const MAX_LOG_LINES = 10_000;

interface LogLine {
  text: string;
  container?: string;
  at: number;
}

interface Follower {
  container?: string;
  timestamps: boolean;
  res: Reply;
}

interface PodLog {
  lines: LogLine[];
  ended: boolean;
  followers: Set<Follower>;
}

/** Options of a log request, from its query. */
export interface LogQuery {
  follow: boolean;
  container?: string;
  tailLines?: number;
  sinceSeconds?: number;
  timestamps: boolean;
}

function flag(value: string | undefined): boolean {
  return value === 'true' || value === '1';
}

function count(name: string, value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  if (!/^\d+$/.test(value)) throw badRequest(`${name}: Invalid value: "${value}"`);
  return Number(value);
}

/** Parses `follow`, `container`, `tailLines`, `sinceSeconds`, `timestamps`. */
export function parseLogQuery(query: Record<string, string>): LogQuery {
  const q: LogQuery = { follow: flag(query.follow), timestamps: flag(query.timestamps) };
  if (query.container) q.container = query.container;
  const tail = count('tailLines', query.tailLines);
  const since = count('sinceSeconds', query.sinceSeconds);
  if (tail !== undefined) q.tailLines = tail;
  if (since !== undefined) q.sinceSeconds = since;
  return q;
}

/** RFC 3339 with nanoseconds, as the kubelet prefixes lines with `timestamps=true`. */
function rfc3339Nano(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000000Z');
}

function render(l: LogLine, timestamps: boolean): string {
  return (timestamps ? `${rfc3339Nano(l.at)} ` : '') + l.text + '\n';
}

/**
 * A line appended without a container belongs to every container; a request without
 * `container` gets every line.
 */
function forContainer(l: LogLine, container: string | undefined): boolean {
  return container === undefined || l.container === undefined || l.container === container;
}

/** Pod logs: appended lines, followers streaming them, and the end of a pod's log. */
export class PodLogs {
  private readonly pods = new Map<string, PodLog>();

  private log(namespace: string, pod: string): PodLog {
    const key = `${namespace}/${pod}`;
    let log = this.pods.get(key);
    if (log === undefined) {
      log = { lines: [], ended: false, followers: new Set() };
      this.pods.set(key, log);
    }
    return log;
  }

  has(namespace: string, pod: string): boolean {
    return this.pods.has(`${namespace}/${pod}`);
  }

  /** Appends a line (re-opens a log that was ended, like a restarted container). */
  append(namespace: string, pod: string, text: string, container?: string): void {
    const log = this.log(namespace, pod);
    log.ended = false;
    const entry: LogLine = { text, at: Date.now() };
    if (container !== undefined) entry.container = container;
    log.lines.push(entry);
    if (log.lines.length > MAX_LOG_LINES) log.lines.splice(0, log.lines.length - MAX_LOG_LINES);
    for (const f of log.followers) {
      if (forContainer(entry, f.container)) f.res.write(render(entry, f.timestamps));
    }
  }

  /** Ends the log: following requests complete, later ones get what exists and end. */
  end(namespace: string, pod: string): void {
    const log = this.log(namespace, pod);
    log.ended = true;
    for (const f of log.followers) f.res.end();
    log.followers.clear();
  }

  /** Ends every follower (the server stops). */
  endAll(): void {
    for (const log of this.pods.values()) {
      for (const f of log.followers) f.res.end();
      log.followers.clear();
    }
  }

  /** Answers a log request for a pod known to exist. */
  serve(
    res: Reply,
    namespace: string,
    pod: string,
    q: LogQuery,
    headers: Record<string, string>,
  ): void {
    const log = this.log(namespace, pod);
    const since = q.sinceSeconds !== undefined ? Date.now() - q.sinceSeconds * 1000 : -Infinity;
    let lines = log.lines.filter((l) => l.at >= since && forContainer(l, q.container));
    if (q.tailLines !== undefined) lines = q.tailLines === 0 ? [] : lines.slice(-q.tailLines);
    const body = lines.map((l) => render(l, q.timestamps)).join('');
    const type = { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-cache' };
    if (!q.follow || log.ended) {
      res.writeHead(200, { ...headers, ...type, 'Content-Length': Buffer.byteLength(body) });
      res.end(body);
      return;
    }
    res.writeHead(200, { ...headers, ...type });
    res.flushHeaders();
    if (body !== '') res.write(body);
    const follower: Follower = { res, timestamps: q.timestamps };
    if (q.container !== undefined) follower.container = q.container;
    log.followers.add(follower);
    res.on('close', () => log.followers.delete(follower));
  }
}
