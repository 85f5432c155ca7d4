import type { Observable, SchedulerLike, Subscription } from 'rxjs';

interface Step {
  closed: boolean;
  subscription?: Subscription;
}

/** What a step's observable reports to. */
export interface StepHandlers<V> {
  next(value: V): void;
  error(error: unknown): void;
  complete(): void;
}

/**
 * One step in flight at a time (a connection, a list or a timer): starting a step closes the one
 * before, and a closed step's callbacks are ignored. A source may answer synchronously, before
 * its Subscription exists, so "closed" is a flag first and an unsubscribe as soon as there is one.
 */
export class SerialSteps {
  private current?: Step;
  /** Stopped for good: later steps are not started (a teardown may run inside a callback). */
  private stopped = false;

  constructor(private readonly scheduler: SchedulerLike) {}

  run<V>(observable: Observable<V>, handlers: StepHandlers<V>): void {
    if (this.stopped) return;
    const step = this.replace();
    const subscription = observable.subscribe({
      next: (value) => {
        if (!step.closed) handlers.next(value);
      },
      error: (error) => {
        if (step.closed) return;
        step.closed = true;
        handlers.error(error);
      },
      complete: () => {
        if (step.closed) return;
        step.closed = true;
        handlers.complete();
      },
    });
    step.subscription = subscription;
    if (step.closed) subscription.unsubscribe();
  }

  /** Even "at once" goes through the scheduler, so a source that ends synchronously cannot recurse. */
  later(delay: number, then: () => void): void {
    if (this.stopped) return;
    this.replace().subscription = this.scheduler.schedule(() => then(), delay);
  }

  /** Closes the current step and starts no other. */
  stop(): void {
    this.stopped = true;
    this.close();
  }

  private close(): void {
    if (!this.current) return;
    this.current.closed = true;
    this.current.subscription?.unsubscribe();
  }

  private replace(): Step {
    this.close();
    const step: Step = { closed: false };
    this.current = step;
    return step;
  }
}
