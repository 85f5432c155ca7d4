import http from 'node:http';

/** Reads a request's whole body. */
export function bodyOf(req: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** Hands an answer on to `res` as it comes: its head first (a watch's comes before any event). */
export function pipeAnswer(res: http.ServerResponse): (answer: http.IncomingMessage) => void {
  return (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    res.flushHeaders();
    answer.pipe(res);
  };
}

/** How {@link forward} sends a request on. */
export interface ForwardOptions {
  /** Headers set over the request's own. */
  headers?: http.OutgoingHttpHeaders;
  /** The body, when it was read already (else the request is piped). */
  body?: Buffer;
  agent?: http.Agent;
  /** Takes the answer instead of {@link pipeAnswer}. */
  onAnswer?: (answer: http.IncomingMessage) => void;
}

/**
 * Sends `req` on to `target` as it came (method, path, headers but `host`), and its answer back
 * through `res`: the middle of the spec proxies that lose, hold, delay or rewrite what crosses
 * them. The forwarded request is destroyed when `res` closes, and `res` when it fails.
 *
 * @example
 * RawServer.start((req, res) => forward(new URL(fake.url), req, res));
 */
export function forward(
  target: URL,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  { headers, body, agent, onAnswer = pipeAnswer(res) }: ForwardOptions = {},
): void {
  const out = http.request(
    {
      host: target.hostname,
      port: target.port,
      method: req.method,
      path: req.url,
      headers: { ...req.headers, host: target.host, ...headers },
      agent,
    },
    onAnswer,
  );
  out.on('error', () => res.destroy());
  res.on('close', () => out.destroy());
  if (body !== undefined) out.end(body);
  else req.pipe(out);
}
