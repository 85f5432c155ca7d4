const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// What Node's own HTTP client accepts in a header value: no control characters but tab.
const BAD_VALUE = /[^\t\x20-\x7e\x80-\xff]/;
/** Headers the transport owns: they describe the connection and the (empty) request body. */
const OWNED = new Set(['host', 'connection', 'content-length', 'transfer-encoding']);

/**
 * The head of one HTTP/1.1 GET (request line and headers, latin1), for `target`, closing the
 * connection after the answer. Throws when a header name or value would break the request (a
 * line break in a token, say); the message names the header, never its value.
 */
export function requestHead(target: URL, headers: Record<string, string>): string {
  let head = `GET ${target.pathname}${target.search} HTTP/1.1\r\nhost: ${target.host}\r\n`;
  const names = Object.keys(headers);
  if (!names.some((name) => name.toLowerCase() === 'user-agent')) head += 'user-agent: kube-rx\r\n';
  for (const name of names) {
    const value = headers[name];
    if (!TOKEN.test(name)) throw new Error('a request header name is not an HTTP token');
    if (OWNED.has(name.toLowerCase())) continue;
    if (BAD_VALUE.test(value))
      throw new Error(`the ${name} header holds a character HTTP does not allow`);
    head += `${name}: ${value}\r\n`;
  }
  return `${head}connection: close\r\n\r\n`;
}
