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
