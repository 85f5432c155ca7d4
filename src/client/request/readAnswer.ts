import { WatchError } from '../../WatchError.js';
import type { ResponseBody, ResponseHead } from '../../transport/body.js';
import { aborted } from './openStream.js';
import { contentLength, readBody } from './readBody.js';

/** The whole body of a 2xx answer, up to `limit` bytes; longer, broken or aborted: an error. */
export async function readAnswer(
  { body, head }: { body: ResponseBody; head: ResponseHead },
  resourcePath: string,
  signal: AbortSignal,
  limit: number,
): Promise<{ ok: true; bytes: Uint8Array } | { ok: false; error: WatchError }> {
  const read = await readBody(body, limit, contentLength(head), signal);
  if (signal.aborted) return aborted(resourcePath);
  if (!read.ok)
    return {
      ok: false,
      error: WatchError.network(resourcePath, read.cause, 'reading the answer failed'),
    };
  if (read.truncated) {
    const cause = new Error(`the answer is longer than ${limit} bytes`);
    return { ok: false, error: WatchError.network(resourcePath, cause) };
  }
  return { ok: true, bytes: read.bytes };
}
