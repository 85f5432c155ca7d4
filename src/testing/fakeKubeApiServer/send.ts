import { isGone } from './protocol.js';
import type { Reply } from './protocol.js';

/** Answers `status` with a JSON body (serialised here unless it is a string already). */
export function sendJson(
  res: Reply,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
  contentType = 'application/json',
): void {
  const json = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    'Content-Type': contentType,
    'Content-Length': Buffer.byteLength(json),
  });
  res.end(json);
}

/** Answers 200 with a plain-text body. */
export function sendText(res: Reply, text: string, headers: Record<string, string> = {}): void {
  res.writeHead(200, {
    ...headers,
    'Content-Type': 'text/plain; charset=utf-8',
    'X-Content-Type-Options': 'nosniff',
    'Content-Length': Buffer.byteLength(text),
  });
  res.end(text);
}

/** How many bytes of a long body are copied into one write (larger bodies take several). */
const WRITE_BATCH_BYTES = 1024 * 1024;

/**
 * Answers `status` with a JSON body made of `parts` (already UTF-8), written in batches of about
 * 1 MiB that wait for the connection to drain: a list of 100 000 objects (half a gigabyte) is
 * neither joined into one string nor queued in memory all at once.
 */
export function sendJsonParts(
  res: Reply,
  status: number,
  parts: readonly Uint8Array[],
  headers: Record<string, string> = {},
  contentType = 'application/json',
): void {
  let length = 0;
  for (const part of parts) length += part.length;
  res.writeHead(status, { ...headers, 'Content-Type': contentType, 'Content-Length': length });
  if (length <= WRITE_BATCH_BYTES) {
    res.end(Buffer.concat(parts, length));
    return;
  }
  let next = 0;
  const writeSome = (): void => {
    while (next < parts.length) {
      if (isGone(res)) return;
      const from = next;
      let size = 0;
      while (next < parts.length && (size === 0 || size + parts[next].length <= WRITE_BATCH_BYTES))
        size += parts[next++].length;
      if (!res.write(Buffer.concat(parts.slice(from, next), size))) {
        res.once('drain', writeSome);
        return;
      }
    }
    res.end();
  };
  writeSome();
}
