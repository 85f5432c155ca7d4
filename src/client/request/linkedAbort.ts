/**
 * An AbortController owned by one subscription, aborted when the caller's signal aborts.
 * rxjs `from(asyncIterable)` would notice an unsubscribe only at the next value, so an idle
 * watch would stay open: every source owns one of these and aborts it in its teardown.
 */
export function linkedAbort(
  signal: AbortSignal | undefined,
  onCallerAbort?: () => void,
): {
  controller: AbortController;
  unlink(): void;
} {
  const controller = new AbortController();
  const abort = () => {
    controller.abort();
    onCallerAbort?.();
  };
  signal?.addEventListener('abort', abort, { once: true });
  return { controller, unlink: () => signal?.removeEventListener('abort', abort) };
}
