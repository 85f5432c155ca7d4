import type { Action } from '../Action.js';
import type { KeyState } from './KeyState.js';

/** The retry part of `reconcileQueue`'s configuration, defaults filled in. */
export interface RetrySettings {
  initialMs: number;
  maxMs: number;
  factor: number;
  jitter: number;
  maxAttempts: number;
  random: () => number;
}

/** What a run came to, and when the key runs next (-1: on its next trigger only). */
export interface Outcome {
  outcome: 'done' | 'requeue' | 'error' | 'gave-up';
  next: number;
}

/**
 * A run succeeded: the backoff starts over, and the key runs again when its Action asks.
 *
 * @example
 * afterSuccess(state, Action.requeueAfter(5_000), now); // { outcome: 'requeue', next: now + 5000 }
 */
export function afterSuccess(state: KeyState, value: Action | void, now: number): Outcome {
  state.failures = 0;
  state.retryAt = -1;
  const ms = value?.requeueAfterMs;
  if (typeof ms === 'number' && ms >= 0 && ms < Infinity) {
    return { outcome: 'requeue', next: now + Math.ceil(ms) };
  }
  return { outcome: 'done', next: -1 };
}

/**
 * A run failed. Only a run at or after its scheduled retry counts as a further attempt: an
 * early trigger's failed run leaves the backoff as it was (client-go's grows on every spurious
 * trigger, kubernetes 132805). After `maxAttempts` counted failures the key gives up.
 *
 * @example
 * afterFailure(state, startedAt, now, settings); // { outcome: 'error', next: now + 100 }
 */
export function afterFailure(
  state: KeyState,
  startedAt: number,
  now: number,
  settings: RetrySettings,
): Outcome {
  if (state.retryAt >= 0 && startedAt < state.retryAt) {
    return { outcome: 'error', next: Math.max(state.retryAt, now) };
  }
  state.failures++;
  if (state.failures >= settings.maxAttempts) {
    state.failures = 0;
    state.retryAt = -1;
    return { outcome: 'gave-up', next: -1 };
  }
  state.retryAt = now + backoff(state.failures, settings);
  return { outcome: 'error', next: state.retryAt };
}

/** `initialMs * factor^(n-1)` capped at `maxMs`, spread by +-jitter, never past `maxMs`. */
function backoff(failures: number, settings: RetrySettings): number {
  const { initialMs, maxMs, factor, jitter, random } = settings;
  const base = Math.min(maxMs, initialMs * factor ** (failures - 1));
  const spread = base * (1 + jitter * (2 * random() - 1));
  return Math.max(0, Math.min(maxMs, Math.round(spread)));
}
