import { describe, expect, it } from '@jest/globals';
import { proxyForUrl, type ProxyEnvironment } from '../../src/transport/proxyForUrl.js';

// The rules of Go's golang.org/x/net/http/httpproxy (what kubectl's http.ProxyFromEnvironment
// uses), and client-go's kubeconfig proxy-url, one by one.
const PROXY = 'http://proxy.corp:3128/';
const both: ProxyEnvironment = { HTTPS_PROXY: PROXY, HTTP_PROXY: PROXY };

const through = (target: string, env: ProxyEnvironment, proxyUrl?: string) =>
  proxyForUrl(target, { env, ...(proxyUrl !== undefined && { proxyUrl }) });

describe('proxyForUrl: which variable', () => {
  it('no proxy configured: direct', () => {
    expect(through('https://api.example.com:6443', {})).toBeUndefined();
    expect(through('https://api.example.com', { HTTPS_PROXY: '' })).toBeUndefined();
  });

  it('https targets use HTTPS_PROXY, http targets HTTP_PROXY, with no fallback between them', () => {
    const env = { HTTPS_PROXY: 'http://secure:1/', HTTP_PROXY: 'http://plain:2/' };
    expect(through('https://api.example.com', env)).toBe('http://secure:1/');
    expect(through('http://api.example.com', env)).toBe('http://plain:2/');
    expect(through('https://api.example.com', { HTTP_PROXY: PROXY })).toBeUndefined();
    expect(through('http://api.example.com', { HTTPS_PROXY: PROXY })).toBeUndefined();
  });

  it('the upper-case name first, the lower-case one when it is unset or empty', () => {
    expect(
      through('https://a.example', { HTTPS_PROXY: 'http://up:1', https_proxy: 'http://low:2' }),
    ).toBe('http://up:1/');
    expect(through('https://a.example', { HTTPS_PROXY: '', https_proxy: 'http://low:2' })).toBe(
      'http://low:2/',
    );
    expect(through('http://a.example', { http_proxy: 'http://low:3' })).toBe('http://low:3/');
  });

  it('a value without a scheme means http://; https and socks5 proxies are kept; an unreadable one is ignored', () => {
    expect(through('https://a.example', { HTTPS_PROXY: 'proxy.corp:3128' })).toBe(PROXY);
    expect(through('https://a.example', { HTTPS_PROXY: '10.0.0.9:3128' })).toBe(
      'http://10.0.0.9:3128/',
    );
    expect(through('https://a.example', { HTTPS_PROXY: 'https://p:8443' })).toBe('https://p:8443/');
    expect(through('https://a.example', { HTTPS_PROXY: 'socks5://p:1080' })).toBe(
      'socks5://p:1080',
    );
    expect(through('https://a.example', { HTTPS_PROXY: 'http://u:pw@p:1' })).toBe(
      'http://u:pw@p:1/',
    );
    expect(through('https://a.example', { HTTPS_PROXY: 'bad proxy:1' })).toBeUndefined();
  });

  it('other schemes are never proxied', () => {
    expect(through('ws://a.example', { ...both, ALL_PROXY: PROXY })).toBeUndefined();
  });
});

describe('proxyForUrl: loopback', () => {
  it.each([
    'https://localhost:6443',
    'http://localhost',
    'https://127.0.0.1:6443',
    'https://127.8.9.10',
    'https://[::1]:6443',
    'https://[::ffff:127.0.0.1]:6443',
  ])('%s is never proxied', (target) => {
    expect(through(target, both)).toBeUndefined();
  });

  it('names that only look like loopback are proxied', () => {
    expect(through('https://localhost.example.com', both)).toBe(PROXY);
    expect(through('https://128.0.0.1', both)).toBe(PROXY);
    expect(through('https://[::2]', both)).toBe(PROXY);
  });
});

describe('proxyForUrl: NO_PROXY', () => {
  const proxied = (target: string, noProxy: string, name = 'NO_PROXY') =>
    through(target, { ...both, [name]: noProxy }) !== undefined;

  it('* exempts everything', () => {
    expect(proxied('https://api.example.com', '*')).toBe(false);
    expect(proxied('https://10.1.1.1', 'foo.com, *')).toBe(false);
  });

  it('a name matches itself and its subdomains, not names that end the same', () => {
    expect(proxied('https://example.com', 'example.com')).toBe(false);
    expect(proxied('https://api.example.com:6443', 'example.com')).toBe(false);
    expect(proxied('https://a.b.example.com', 'example.com')).toBe(false);
    expect(proxied('https://badexample.com', 'example.com')).toBe(true);
    expect(proxied('https://example.com.evil', 'example.com')).toBe(true);
  });

  it('a leading . or *. matches subdomains only', () => {
    expect(proxied('https://api.example.com', '.example.com')).toBe(false);
    expect(proxied('https://example.com', '.example.com')).toBe(true);
    expect(proxied('https://api.example.com', '*.example.com')).toBe(false);
    expect(proxied('https://example.com', '*.example.com')).toBe(true);
  });

  it('entries are trimmed and compared without case; empty and malformed entries are skipped', () => {
    expect(proxied('https://API.Example.COM', ' , :80, EXAMPLE.com ,')).toBe(false);
    expect(proxied('https://other.org', ' , :80, EXAMPLE.com ,')).toBe(true);
  });

  it('no_proxy is read when NO_PROXY is unset or empty', () => {
    expect(proxied('https://api.example.com', 'example.com', 'no_proxy')).toBe(false);
    expect(
      through('https://api.example.com', { ...both, NO_PROXY: '', no_proxy: 'example.com' }),
    ).toBeUndefined();
    expect(
      through('https://api.example.com', {
        ...both,
        NO_PROXY: 'other.org',
        no_proxy: 'example.com',
      }),
    ).toBe(PROXY);
  });

  it('an IP matches that address only (IPv4, IPv6, IPv4-mapped)', () => {
    expect(proxied('https://10.0.0.1:6443', '10.0.0.1')).toBe(false);
    expect(proxied('https://10.0.0.10', '10.0.0.1')).toBe(true);
    expect(proxied('https://[fd00::1]:6443', 'fd00::1')).toBe(false);
    expect(proxied('https://[fd00:0::1]', 'FD00::0:1')).toBe(false);
    expect(proxied('https://[fd00::2]', 'fd00::1')).toBe(true);
    expect(proxied('https://[::ffff:10.0.0.1]', '10.0.0.1')).toBe(false);
  });

  it('a CIDR matches the addresses in it, of its own family', () => {
    expect(proxied('https://10.96.0.1', '10.0.0.0/8')).toBe(false);
    expect(proxied('https://11.0.0.1', '10.0.0.0/8')).toBe(true);
    expect(proxied('https://192.168.7.200', '192.168.7.128/25')).toBe(false);
    expect(proxied('https://192.168.7.100', '192.168.7.128/25')).toBe(true);
    expect(proxied('https://[fd12:3456::1]', 'fd00::/8')).toBe(false);
    expect(proxied('https://[fe80::1]', 'fd00::/8')).toBe(true);
    expect(proxied('https://[::ffff:10.1.2.3]', '10.0.0.0/8')).toBe(false);
    expect(proxied('https://10.1.2.3', '::/0')).toBe(true); // an IPv6 CIDR holds no IPv4 address
    expect(proxied('https://10.1.2.3', '::ffff:10.0.0.0/104')).toBe(false);
    expect(proxied('https://0.0.0.1', '0.0.0.0/0')).toBe(false);
    // A CIDR never matches a name, even one that resolves into it.
    expect(proxied('https://kubernetes.default.svc', '10.0.0.0/8')).toBe(true);
  });

  it('host:port exempts that port only; the target port defaults from the scheme', () => {
    expect(proxied('https://example.com:6443', 'example.com:6443')).toBe(false);
    expect(proxied('https://api.example.com:6443', 'example.com:6443')).toBe(false);
    expect(proxied('https://example.com:443', 'example.com:6443')).toBe(true);
    expect(proxied('https://example.com', 'example.com:443')).toBe(false);
    expect(proxied('http://example.com', 'example.com:80')).toBe(false);
    expect(proxied('http://example.com', 'example.com:443')).toBe(true);
    expect(proxied('https://10.0.0.1:6443', '10.0.0.1:6443')).toBe(false);
    expect(proxied('https://10.0.0.1', '10.0.0.1:6443')).toBe(true);
    expect(proxied('https://[fd00::1]', '[fd00::1]:443')).toBe(false);
    expect(proxied('https://[fd00::1]:6443', '[fd00::1]:443')).toBe(true);
  });

  it('an international name matches in its ASCII form', () => {
    expect(proxied('https://api.bücher.example', 'bücher.example')).toBe(false);
    expect(proxied('https://api.xn--bcher-kva.example', 'bücher.example')).toBe(false);
  });

  it('strings that are not IPs are names: a rule like 0.1 matches hosts ending in .0.1, as in Go', () => {
    expect(proxied('https://10.0.0.1', '0.1')).toBe(false);
    expect(proxied('https://10.0.0.2', '0.1')).toBe(true);
  });
});

describe('proxyForUrl: the kubeconfig proxy-url', () => {
  it('wins over the environment, NO_PROXY and loopback', () => {
    const env = { ...both, NO_PROXY: '*' };
    expect(through('https://api.example.com', env, 'http://kc-proxy:8080')).toBe(
      'http://kc-proxy:8080/',
    );
    expect(through('https://127.0.0.1:6443', {}, 'socks5://kc:1080')).toBe('socks5://kc:1080');
  });

  it('one that is not an http, https or socks5 URL is refused, not skipped', () => {
    expect(() => through('https://a.example', {}, 'ftp://p:21')).toThrow(/proxy-url/);
    expect(() => through('https://a.example', {}, 'proxy:3128')).toThrow(/proxy-url/);
  });
});
