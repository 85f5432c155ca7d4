import { Client, buildConnector } from 'undici';
import type { Socket } from 'node:net';
import { basicAuthorization } from '../security/basicAuthorization.js';
import { socketOptions } from './transportSettings.js';

/**
 * A connector that reaches the server through an HTTP(S) proxy: a `CONNECT host:port` tunnel
 * (undici's `Client#connect`), then TLS to the server inside it with the server's own TLS
 * settings (`toServer`). Credentials in the proxy URL go in `Proxy-Authorization`.
 */
export function proxyConnector(
  proxyUrl: string,
  toServer: buildConnector.connector,
): buildConnector.connector {
  const proxy = new URL(proxyUrl);
  if (proxy.protocol !== 'http:' && proxy.protocol !== 'https:')
    throw new Error(`unsupported proxy protocol ${proxy.protocol}`);
  const headers: Record<string, string> = {};
  if (proxy.username || proxy.password) {
    const user = `${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`;
    headers['proxy-authorization'] = basicAuthorization(user);
  }
  const toProxy = buildConnector(socketOptions());
  return (options, callback) => {
    const secure = options.protocol === 'https:';
    const port = options.port || (secure ? '443' : '80');
    const authority = `${options.hostname.includes(':') && !options.hostname.startsWith('[') ? `[${options.hostname}]` : options.hostname}:${port}`;
    const client = new Client(proxy.origin, { connect: toProxy });
    client
      .connect({ path: authority, headers: { ...headers, host: authority } })
      .then(({ socket: tunnel, statusCode }) => {
        const socket = tunnel as Socket;
        client.close().catch(() => undefined);
        if (statusCode !== 200) {
          socket.destroy();
          return callback(new Error(`the proxy refused the tunnel (${statusCode})`), null);
        }
        if (!secure) return callback(null, socket);
        toServer({ ...options, httpSocket: socket }, callback);
      })
      .catch((cause: Error) => {
        client.destroy().catch(() => undefined);
        callback(cause, null);
      });
  };
}
