import { describe, expect, it } from '@jest/globals';
import { requestHead } from '../../../src/sources/http1/requestHead.js';

/** The header lines of a head (request line and blank line left out). */
function headerLines(head: string): string[] {
  expect(head.endsWith('\r\n\r\n')).toBe(true);
  return head.slice(0, -4).split('\r\n').slice(1);
}

function thrown(run: () => unknown): Error {
  try {
    run();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a throw');
}

describe('requestHead', () => {
  it('builds a GET for the path and query, with host, user-agent and connection: close', () => {
    const head = requestHead(
      new URL('https://k8s.example:6443/api/v1/namespaces/default/pods?watch=1&resourceVersion=5'),
      {},
    );
    expect(head).toBe(
      'GET /api/v1/namespaces/default/pods?watch=1&resourceVersion=5 HTTP/1.1\r\n' +
        'host: k8s.example:6443\r\n' +
        'user-agent: kube-rx\r\n' +
        'connection: close\r\n' +
        '\r\n',
    );
  });

  it('sends / for an empty path and leaves out the fragment', () => {
    expect(requestHead(new URL('http://k8s.example'), {})).toMatch(/^GET \/ HTTP\/1\.1\r\n/);
    expect(requestHead(new URL('http://k8s.example/api?x=1#frag'), {})).toMatch(
      /^GET \/api\?x=1 HTTP\/1\.1\r\n/,
    );
  });

  it('sends the path percent-encoded as the URL holds it', () => {
    expect(requestHead(new URL('http://h/a b/é?q=a b'), {})).toMatch(
      /^GET \/a%20b\/%C3%A9\?q=a%20b HTTP\/1\.1\r\n/,
    );
  });

  it('gives the host with its port, and without a default port', () => {
    expect(headerLines(requestHead(new URL('http://10.0.0.1:8080/'), {}))[0]).toBe(
      'host: 10.0.0.1:8080',
    );
    expect(headerLines(requestHead(new URL('https://k8s.example:443/'), {}))[0]).toBe(
      'host: k8s.example',
    );
    expect(headerLines(requestHead(new URL('http://k8s.example:80/'), {}))[0]).toBe(
      'host: k8s.example',
    );
  });

  it('gives an IPv6 literal host in brackets with its port', () => {
    const head = requestHead(new URL('http://[::1]:8080/'), {});
    expect(head).toBe(
      'GET / HTTP/1.1\r\nhost: [::1]:8080\r\nuser-agent: kube-rx\r\nconnection: close\r\n\r\n',
    );
  });

  it('sends the caller headers in order, after the default user-agent', () => {
    const head = requestHead(new URL('https://k8s.example/api'), {
      accept: 'application/json',
      authorization: 'Bearer abc.def',
      'X-Custom': 'value',
    });
    expect(headerLines(head)).toEqual([
      'host: k8s.example',
      'user-agent: kube-rx',
      'accept: application/json',
      'authorization: Bearer abc.def',
      'X-Custom: value',
      'connection: close',
    ]);
  });

  it('lets the caller override the user-agent', () => {
    const lines = headerLines(
      requestHead(new URL('https://k8s.example/'), { 'user-agent': 'my-operator/1.2' }),
    );
    expect(lines).toEqual([
      'host: k8s.example',
      'user-agent: my-operator/1.2',
      'connection: close',
    ]);
  });

  it('sends one user-agent when the caller names it in another case', () => {
    const lines = headerLines(
      requestHead(new URL('https://k8s.example/'), { 'User-Agent': 'my-operator/1.2' }),
    );
    const agents = lines.filter((line) => line.toLowerCase().startsWith('user-agent:'));
    expect(agents).toHaveLength(1);
    expect(agents[0].slice('user-agent:'.length).trim()).toBe('my-operator/1.2');
  });

  it('ignores the caller host, connection, content-length and transfer-encoding, in any case', () => {
    const head = requestHead(new URL('http://real.example:8080/x'), {
      host: 'evil.example',
      Connection: 'keep-alive',
      'content-length': '10',
      'Transfer-Encoding': 'chunked',
      HOST: 'other.example',
      accept: '*/*',
    });
    expect(headerLines(head)).toEqual([
      'host: real.example:8080',
      'user-agent: kube-rx',
      'accept: */*',
      'connection: close',
    ]);
    expect(head).not.toMatch(/evil|other|keep-alive|chunked|10/);
  });

  it('puts connection: close last, then the blank line', () => {
    const head = requestHead(new URL('http://h/'), { a: '1', b: '2' });
    expect(head.endsWith('\r\nb: 2\r\nconnection: close\r\n\r\n')).toBe(true);
    expect(head.indexOf('\r\n\r\n')).toBe(head.length - 4);
  });

  it('refuses a value with CR or LF, with a message naming the header but not the value', () => {
    for (const value of ['secret\r\nX-Evil: 1', 'secret\nX-Evil: 1', 'secret\rX-Evil: 1']) {
      const error = thrown(() =>
        requestHead(new URL('https://k8s.example/'), { authorization: `Bearer ${value}` }),
      );
      expect(error).toBeInstanceOf(Error);
      expect(error.message).toContain('authorization');
      expect(error.message).not.toContain('secret');
      expect(error.message).not.toContain('X-Evil');
      expect(error.message).not.toMatch(/[\r\n]/);
    }
  });

  it('refuses other control characters and characters beyond latin1 in a value', () => {
    for (const value of ['a\x00b', 'a\x1bb', 'a\x7fb', 'toksecret日本']) {
      const error = thrown(() => requestHead(new URL('http://h/'), { 'x-token': value }));
      expect(error.message).toContain('x-token');
      expect(error.message).not.toContain(value);
      expect(error.message).not.toContain('secret');
    }
  });

  it('refuses a header name that is not a token, without the value in the message', () => {
    for (const name of ['bad name', 'x-a:', '', 'x\r\ny', 'nämé', 'x(y)']) {
      const error = thrown(() => requestHead(new URL('http://h/'), { [name]: 'sekrit-value' }));
      expect(error).toBeInstanceOf(Error);
      expect(error.message).not.toContain('sekrit-value');
    }
  });

  it('refuses a name with a space even for a header it would otherwise drop', () => {
    expect(() => requestHead(new URL('http://h/'), { 'host ': 'x' })).toThrow();
  });

  it('allows tab and non-ASCII latin1 in a value, sent as latin1 bytes', () => {
    const head = requestHead(new URL('http://h/'), { 'x-name': 'café\tçà ÿ' });
    expect(headerLines(head)).toContain('x-name: café\tçà ÿ');
    const bytes = Buffer.from(head, 'latin1');
    expect(bytes.includes(Buffer.from([0x63, 0x61, 0x66, 0xe9]))).toBe(true);
    expect(bytes.includes(0xff)).toBe(true);
  });

  it('allows every token character in a name', () => {
    const name = "!#$%&'*+-.^_`|~09AZaz";
    expect(headerLines(requestHead(new URL('http://h/'), { [name]: 'v' }))).toContain(`${name}: v`);
  });
});
