import { headerValue, type ResponseBody, type ResponseHead } from '../../transport/body.js';
import { concatBytes } from '../../transport/bytes.js';

/** The most a body's announced length makes {@link readBody} allocate before its bytes come. */
const MAX_PREALLOCATED_BYTES = 64 * 1024 * 1024;

/**
 * The answer's Content-Length, when it has a plausible one.
 *
 * @example
 * readBody(body, limit, contentLength(head));
 */
export function contentLength(head: ResponseHead): number | undefined {
  const value = headerValue(head, 'content-length');
  if (value === undefined || !/^\d{1,15}$/.test(value.trim())) return undefined;
  return Number(value);
}

/**
 * Reads a body to its end, or up to `limit` bytes (then releases it: `truncated`). With the
 * body's announced `length` (up to 64 MiB), its bytes are copied once into one array of that
 * size; a body that turns out longer goes on in chunks, like one of unknown length. The one
 * whole-body read of kube-rx: list pages, JSON answers, error bodies, the command's discovery.
 * An abort of `signal` ends the read (`ok: false`): the transport releases the body on abort and
 * tells its sink nothing more, so a body that stalls would otherwise be waited for forever.
 *
 * @example
 * const read = await readBody(body, 16 << 20, contentLength(head));
 */
export function readBody(
  body: ResponseBody,
  limit: number,
  length?: number,
  signal?: AbortSignal,
): Promise<{ ok: true; bytes: Uint8Array; truncated: boolean } | { ok: false; cause: unknown }> {
  return new Promise((settle) => {
    const onAbort = () => resolve({ ok: false, cause: new Error('the read was aborted') });
    const resolve: typeof settle = (result) => {
      signal?.removeEventListener('abort', onAbort);
      settle(result);
    };
    if (signal?.aborted) return onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    const chunks: Uint8Array[] = [];
    let whole =
      length !== undefined && length <= Math.min(limit, MAX_PREALLOCATED_BYTES)
        ? new Uint8Array(length)
        : undefined;
    let size = 0;
    const read = (): Uint8Array =>
      whole !== undefined ? whole.subarray(0, size) : concatBytes(chunks, size);
    body.start({
      bytes: (buffer, start, end) => {
        const take = Math.min(end - start, limit - size);
        // A copy: the bytes are only valid during the call.
        if (whole !== undefined && size + take <= whole.length) {
          whole.set(buffer.subarray(start, start + take), size);
        } else {
          if (whole !== undefined) chunks.push(whole.subarray(0, size));
          whole = undefined;
          chunks.push(new Uint8Array(buffer.subarray(start, start + take)));
        }
        size += take;
        if (size < limit) return true;
        resolve({ ok: true, bytes: read(), truncated: true });
        return false;
      },
      end: () => resolve({ ok: true, bytes: read(), truncated: false }),
      fail: (cause) => resolve({ ok: false, cause }),
    });
  });
}
