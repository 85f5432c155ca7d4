import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { firstValueFrom, lastValueFrom, take, toArray } from 'rxjs';
import { fromPodLogs } from '../../src/sources/fromPodLogs.js';
import { pods } from '../../src/objects/resources.js';
import { FakeKubeApiServer } from '../../src/testing/index.js';
import { pod } from '../../src/testing/marbles/builders.js';
import { RawServer, streamChunks } from '../support/rawServer.js';
import { sleep } from '../support/wait.js';

describe('fromPodLogs', () => {
  let server: FakeKubeApiServer;
  beforeAll(async () => {
    server = await FakeKubeApiServer.start({ bookmarkIntervalMs: 0 });
    server.create(pods, pod('web', '0'));
    for (const l of ['one', 'twö 🚀', '', 'three']) server.appendLog('default', 'web', l);
  });
  afterAll(() => server.stop());

  it('gives one value per line, blank lines included', async () => {
    const lines = await lastValueFrom(
      fromPodLogs(server.kubeConfig(), { namespace: 'default', name: 'web' }).pipe(toArray()),
    );
    expect(lines).toEqual(['one', 'twö 🚀', '', 'three']);
  });

  it('passes tailLines, sinceSeconds, container, timestamps and previous as query parameters', async () => {
    await lastValueFrom(
      fromPodLogs(server.kubeConfig(), {
        namespace: 'default',
        name: 'web',
        tailLines: 2,
        sinceSeconds: 60,
        container: 'main',
        timestamps: true,
        previous: true,
      }).pipe(toArray()),
    );
    const request = server.requests[server.requests.length - 1];
    expect(request.path).toBe('/api/v1/namespaces/default/pods/web/log');
    expect(request.query).toEqual({
      container: 'main',
      tailLines: '2',
      sinceSeconds: '60',
      timestamps: 'true',
      previous: 'true',
    });
  });

  it.each([
    { tailLines: -1 },
    { tailLines: 1.5 },
    { sinceSeconds: Number.NaN },
    { sinceSeconds: '10' as never },
  ])('refuses %p with BAD_REQUEST before sending anything', async (bad) => {
    const before = server.requests.length;
    await expect(
      firstValueFrom(
        fromPodLogs(server.kubeConfig(), { namespace: 'default', name: 'web', ...bad }),
      ),
    ).rejects.toMatchObject({ errorType: 'BAD_REQUEST', statusCode: 400 });
    expect(server.requests.length).toBe(before);
  });

  it('follows new lines until the server ends the stream', async () => {
    const follow = lastValueFrom(
      fromPodLogs(server.kubeConfig(), {
        namespace: 'default',
        name: 'web',
        follow: true,
        tailLines: 0,
      }).pipe(toArray()),
    );
    await server.waitForConnections(1);
    await sleep(30);
    server.appendLog('default', 'web', 'live-1');
    server.appendLog('default', 'web', 'live-2');
    await sleep(30);
    server.endLogs('default', 'web');
    expect(await follow).toEqual(['live-1', 'live-2']);
  });

  it('is abortable: unsubscribing closes the follow stream', async () => {
    await server.waitForConnections(0);
    const line = await firstValueFrom(
      fromPodLogs(server.kubeConfig(), { namespace: 'default', name: 'web', follow: true }).pipe(
        take(1),
      ),
    );
    expect(line).toBe('one');
    await server.waitForConnections(0, 250);
  });

  it('an unknown pod errors with NOT_FOUND, an invalid name with BAD_REQUEST', async () => {
    await expect(
      firstValueFrom(fromPodLogs(server.kubeConfig(), { namespace: 'default', name: 'nope' })),
    ).rejects.toMatchObject({ errorType: 'NOT_FOUND' });
    await expect(
      firstValueFrom(fromPodLogs(server.kubeConfig(), { namespace: 'default', name: '../etc' })),
    ).rejects.toMatchObject({ errorType: 'BAD_REQUEST' });
  });

  it('refuses a maxLineBytes that is not a positive whole number, before any request', async () => {
    const before = server.requests.length;
    for (const maxLineBytes of [Number.NaN, 0, -1, 2.5, Infinity]) {
      await expect(
        firstValueFrom(
          fromPodLogs(server.kubeConfig(), { namespace: 'default', name: 'web', maxLineBytes }),
        ),
      ).rejects.toMatchObject({ errorType: 'BAD_REQUEST', message: /maxLineBytes/ });
    }
    expect(server.requests.length).toBe(before);
  });
});

describe('fromPodLogs on a raw server', () => {
  it('errors with PARSE_ERROR on a line over maxLineBytes, the last one without a newline included', async () => {
    const raw = await RawServer.start();
    try {
      const collect = async (body: string) => {
        raw.handler = streamChunks([body]);
        const lines: string[] = [];
        let error: unknown;
        await new Promise<void>((resolve) =>
          fromPodLogs(raw.kubeConfig(), {
            namespace: 'default',
            name: 'web',
            maxLineBytes: 4,
          }).subscribe({
            next: (l) => lines.push(l),
            error: (e: unknown) => ((error = e), resolve()),
            complete: resolve,
          }),
        );
        return { lines, error };
      };
      expect(await collect('ab\ncdefg\n')).toMatchObject({
        lines: ['ab'],
        error: { errorType: 'PARSE_ERROR' },
      });
      expect(await collect('ab\ncdefg')).toMatchObject({
        lines: ['ab'],
        error: { errorType: 'PARSE_ERROR' },
      });
      expect(await collect('ab\ncdef')).toEqual({ lines: ['ab', 'cdef'], error: undefined });
      await raw.waitForNoSockets();
    } finally {
      await raw.stop();
    }
  });
});
