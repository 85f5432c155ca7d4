import { WatchError } from '../../WatchError.js';
import { headerValue } from '../../transport/body.js';
import { bodyText, decompress } from '../../transport/platform.js';
import type { Cluster, Logger } from '../../types.js';
import { openStream } from './openStream.js';
import { readAnswer } from './readAnswer.js';

/**
 * Sends one GET for a whole JSON answer (a list page; gzip accepted) and reads it, up to
 * `limit` bytes: its text, or the failure as a {@link WatchError} (a body cut short or
 * malformed is SYSTEM_ERROR). Never rejects.
 */
export async function requestText(
  cluster: Cluster,
  resourcePath: string,
  query: URLSearchParams,
  signal: AbortSignal,
  limit: number,
  { accept, onSent, logger }: { accept?: string; onSent?: () => void; logger?: Logger } = {},
): Promise<{ ok: true; text: string } | { ok: false; error: WatchError }> {
  const opened = await openStream(cluster, resourcePath, query, signal, {
    gzip: true,
    accept,
    onSent,
    logger,
  });
  if (!opened.ok) return opened;
  const read = await readAnswer(opened, resourcePath, signal, limit);
  if (!read.ok) return read;
  let bytes = read.bytes;
  const encoding = headerValue(opened.head, 'content-encoding')?.trim().toLowerCase();
  try {
    bytes = await decompress(bytes, encoding, limit);
  } catch (cause) {
    const error = WatchError.network(resourcePath, cause, 'the answer could not be decompressed');
    return { ok: false, error };
  }
  return { ok: true, text: bodyText(bytes) };
}
