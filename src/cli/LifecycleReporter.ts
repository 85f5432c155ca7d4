import type { LifecycleEvent } from '../index.js';

/** The state of one watch as a person would name it. */
export type ConnectionState = 'connecting' | 'live' | 'reconnecting' | 'relisting' | 'failed';

/**
 * Follows the lifecycle of one resumed watch and turns it into a connection state and, for what
 * a person should know about (lost connections, back-offs, relists), one line of text. Routine
 * steps (the initial list, the server closing a watch that resumes at once) say nothing.
 *
 * @example
 * const reporter = new LifecycleReporter('pods');
 * resilientWatch(cluster, pods, {}, { onLifecycle: (e) => { const line = reporter.observe(e); if (line) warn(line); } });
 */
export class LifecycleReporter {
  private current: ConnectionState = 'connecting';
  private synced = false;
  private troubled = false;
  private expired = false;

  constructor(private readonly label: string) {}

  /** The state after the events seen so far. */
  get state(): ConnectionState {
    return this.current;
  }

  /** Takes one lifecycle event; returns the line to show, if it deserves one. */
  observe(event: LifecycleEvent): string | undefined {
    const who = this.label;
    switch (event.type) {
      case 'connecting':
        return undefined;
      case 'connected':
        this.current = 'live';
        if (!this.troubled) return undefined;
        this.troubled = false;
        return `${who}: reconnected, watching again`;
      case 'disconnected':
        if (event.reason === 'closed') return undefined; // the server's routine timeout; resumes at once
        if (event.error?.errorType === 'GONE') return undefined; // 'expired' says it better
        this.current = 'reconnecting';
        this.troubled = true;
        return `${who}: connection lost: ${event.error?.message ?? event.reason}`;
      case 'backoff': {
        this.current = 'reconnecting';
        // A 401 is retried once at once with fresh credentials: news only if that fails too,
        // and then the stream errors with its own message.
        if (event.error.errorType === 'UNAUTHORIZED_ERROR') return undefined;
        this.troubled = true;
        const seconds = (event.delay / 1000).toFixed(1);
        return `${who}: reconnecting in ${seconds}s (attempt ${event.attempt}) after: ${event.error.message}`;
      }
      case 'expired':
        this.current = 'relisting';
        this.expired = true;
        return `${who}: resourceVersion expired (410 Gone): relisting`;
      case 'relist-start': {
        // The first list is part of connecting; only a later one is a relist, and one that
        // follows an expiry has been announced already.
        this.current = this.synced ? 'relisting' : 'connecting';
        const announced = this.expired;
        this.expired = false;
        return this.synced && !announced ? `${who}: relisting` : undefined;
      }
      case 'relist-end': {
        this.current = 'live';
        const first = !this.synced;
        this.synced = true;
        if (first) return undefined;
        this.troubled = false;
        return `${who}: relisted ${event.count} objects, resumed watching`;
      }
    }
  }

  /** Marks the watch as failed for good (an error retrying cannot fix). */
  fail(): void {
    this.current = 'failed';
  }
}
