import { afterEach, describe, expect, it } from '@jest/globals';
import type net from 'node:net';
import { firstValueFrom } from 'rxjs';
import { fromList } from '../../src/sources/fromList.js';
import { pods } from '../../src/objects/resources.js';
import { TcpServer, afterRequest, lastError, runHostile, types } from '../hostile/support.js';

/** A 403 whose Status is readable, but whose framing is broken in one way or another. */
const status = JSON.stringify({ kind: 'Status', code: 403, reason: 'Forbidden', message: 'no' });
const MALFORMED_403: Record<string, string> = {
  'conflicting Content-Length': `HTTP/1.1 403 Forbidden\r\nContent-Type: application/json\r\nContent-Length: ${status.length}\r\nContent-Length: ${status.length + 7}\r\n\r\n${status}`,
  'bad chunk framing': `HTTP/1.1 403 Forbidden\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n${status}\r\n0\r\n\r\n`,
  'a body shorter than its Content-Length': `HTTP/1.1 403 Forbidden\r\nContent-Type: application/json\r\nContent-Length: ${status.length + 100}\r\n\r\n${status}`,
};

describe('a malformed answer is SYSTEM_ERROR whatever its status code', () => {
  let server: TcpServer | undefined;
  afterEach(async () => {
    await server?.stop();
    server = undefined;
  });

  for (const [what, answer] of Object.entries(MALFORMED_403)) {
    it(`a 403 with ${what}: SYSTEM_ERROR 0 for watches and lists, never FORBIDDEN`, async () => {
      server = await TcpServer.start((socket: net.Socket) =>
        afterRequest(socket, () => {
          socket.write(answer);
          // The connection closes after the answer (a short body is then cut short).
          setTimeout(() => socket.end(), 20);
        }),
      );
      const run = await runHostile(server.kubeConfig());
      for (const events of [run.generator, run.observable]) {
        expect(types(events)).toEqual(['ERROR:SYSTEM_ERROR']);
        expect(lastError(events)).toMatchObject({ statusCode: 0, resourcePath: '/api/v1/pods' });
      }
      await expect(firstValueFrom(fromList(server.kubeConfig(), pods))).rejects.toMatchObject({
        errorType: 'SYSTEM_ERROR',
        statusCode: 0,
      });
    });
  }

  it('the same 403, well formed, is FORBIDDEN (the spec above can fail)', async () => {
    server = await TcpServer.start((socket: net.Socket) =>
      afterRequest(socket, () =>
        socket.end(
          `HTTP/1.1 403 Forbidden\r\nContent-Type: application/json\r\nContent-Length: ${status.length}\r\nConnection: close\r\n\r\n${status}`,
        ),
      ),
    );
    const run = await runHostile(server.kubeConfig());
    expect(types(run.generator)).toEqual(['ERROR:FORBIDDEN']);
  });
});
