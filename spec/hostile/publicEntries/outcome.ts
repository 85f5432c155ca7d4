import { isObservable, type Observable } from 'rxjs';

/** What one call of a public entry did, within a time bound. */
export type Outcome =
  | { kind: 'thrown'; error: unknown }
  | { kind: 'events'; events: unknown[] }
  | { kind: 'errored'; error: unknown; events: unknown[] }
  | { kind: 'value'; value: unknown }
  | { kind: 'hung'; events: unknown[] };

/**
 * Calls `call` and follows what it returns: an async generator is iterated to its end, an
 * Observable subscribed to its end, a promise awaited. Anything still running after `timeoutMs`
 * is stopped (return() / unsubscribe) and reported as hung: a bad argument must be answered at
 * once, never by a watch that waits.
 */
export async function outcomeOf(call: () => unknown, timeoutMs = 3000): Promise<Outcome> {
  let result: unknown;
  try {
    result = call();
  } catch (error) {
    return { kind: 'thrown', error };
  }
  if (isObservable(result)) return observableOutcome(result, timeoutMs);
  if (isAsyncIterable(result)) return generatorOutcome(result, timeoutMs);
  if (result instanceof Promise) {
    try {
      return { kind: 'value', value: await result };
    } catch (error) {
      return { kind: 'errored', error, events: [] };
    }
  }
  return { kind: 'value', value: result };
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof (value as AsyncIterable<unknown>)?.[Symbol.asyncIterator] === 'function';
}

function observableOutcome(source: Observable<unknown>, timeoutMs: number): Promise<Outcome> {
  return new Promise((resolve) => {
    const events: unknown[] = [];
    // Created first, so that a source that ends synchronously clears it.
    const timer = setTimeout(() => {
      subscription.unsubscribe();
      resolve({ kind: 'hung', events });
    }, timeoutMs);
    const subscription = source.subscribe({
      next: (value) => events.push(value),
      error: (error) => {
        clearTimeout(timer);
        resolve({ kind: 'errored', error, events });
      },
      complete: () => {
        clearTimeout(timer);
        resolve({ kind: 'events', events });
      },
    });
  });
}

async function generatorOutcome(
  iterable: AsyncIterable<unknown>,
  timeoutMs: number,
): Promise<Outcome> {
  const iterator = iterable[Symbol.asyncIterator]();
  const events: unknown[] = [];
  const deadline = Date.now() + timeoutMs;
  try {
    for (;;) {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>(
        (r) => (timer = setTimeout(() => r('late'), deadline - Date.now())),
      );
      const step = await Promise.race([iterator.next(), late]);
      clearTimeout(timer);
      if (step === 'late') {
        void iterator.return?.();
        return { kind: 'hung', events };
      }
      if (step.done) return { kind: 'events', events };
      events.push(step.value);
    }
  } catch (error) {
    return { kind: 'errored', error, events };
  }
}
