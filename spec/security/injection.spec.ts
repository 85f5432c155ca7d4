import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { firstValueFrom } from 'rxjs';
import { fromList } from '../../src/sources/fromList.js';
import { fromPodLogs } from '../../src/sources/fromPodLogs.js';
import type { ResourceRef, WatchOptions } from '../../src/types.js';
import { watchResource } from '../../src/watch.js';
import { collect } from '../support/rawServer.js';
import { TcpServer } from '../hostile/support.js';
import { pods } from './support.js';

// Names and selectors cannot change the path or add query parameters. The server here records
// the exact request line as it arrived on the socket (no URL parsing, no normalisation).
describe('names and selectors cannot change the request', () => {
  let tcp: TcpServer;
  const lines: string[] = [];
  beforeAll(async () => {
    tcp = await TcpServer.start((socket) => {
      let head = '';
      socket.on('data', (chunk: Buffer) => {
        head += chunk.toString('latin1');
        if (!head.includes('\r\n\r\n')) return;
        const requestLine = head.split('\r\n')[0];
        head = '';
        lines.push(requestLine);
        const body = requestLine.includes('watch=true')
          ? ''
          : '{"kind":"PodList","metadata":{"resourceVersion":"1"},"items":[]}';
        socket.end(
          `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n` +
            `Connection: close\r\n\r\n${body}`,
        );
      });
    });
  });
  beforeEach(() => {
    lines.length = 0;
  });
  afterAll(() => tcp.stop());

  const watchLine = async (options: WatchOptions, resource: ResourceRef = pods) => {
    const events = await collect(watchResource(tcp.kubeConfig(), resource, options));
    return { events, lines: [...lines] };
  };

  /** One BAD_REQUEST ERROR (400) and no request on the wire. */
  const expectRefused = ({ events, lines: sent }: Awaited<ReturnType<typeof watchLine>>) => {
    expect(events).toMatchObject([
      { type: 'ERROR', error: { errorType: 'BAD_REQUEST', statusCode: 400 } },
    ]);
    const error = events[0].type === 'ERROR' ? events[0].error : undefined;
    expect(error?.resourcePath).not.toMatch(/[?#\s]/);
    expect(sent).toEqual([]);
  };

  it.each([
    'a/b',
    '..',
    '.',
    '../kube-system',
    'default/../kube-system',
    'default/pods/x',
    'a?watch=false',
    'a#fragment',
    'a%2Fb',
    '%2e%2e',
    'ünïcödé',
    'Default',
    'a b',
    'a\nb',
    'a\r\nHost: evil.example',
    '-a',
    'a-',
    'a'.repeat(64),
  ])('namespace %j is refused before anything is sent', async (namespace) => {
    expectRefused(await watchLine({ namespace }));
  });

  it.each([
    [{ group: '', version: 'v1', plural: 'pods/../secrets' }],
    [{ group: '', version: 'v1', plural: 'pods?watch=false' }],
    [{ group: '', version: 'v1/../..', plural: 'pods' }],
    [{ group: 'apps/../..', version: 'v1', plural: 'deployments' }],
    [{ group: 'apps?x=1', version: 'v1', plural: 'deployments' }],
    [{ group: '', version: 'v1', plural: 'PODS' }],
  ])('resource %j is refused before anything is sent', async (resource) => {
    expectRefused(await watchLine({}, resource));
  });

  it.each([
    ['web-1/../../secrets', undefined],
    ['web-1?follow=true', undefined],
    ['web-1', 'main/../../x'],
    ['web-1', 'main?previous=true'],
    ['web%2F1', undefined],
  ])(
    'pod log name %j container %j are refused before anything is sent',
    async (name, container) => {
      const outcome = firstValueFrom(
        fromPodLogs(tcp.kubeConfig(), {
          namespace: 'default',
          name,
          ...(container && { container }),
        }),
      );
      await expect(outcome).rejects.toMatchObject({ errorType: 'BAD_REQUEST', statusCode: 400 });
      expect(lines).toEqual([]);
    },
  );

  // Expected encodings are written out by hand (application/x-www-form-urlencoded).
  const selectors: Array<[string, string]> = [
    ['app=web&watch=false', 'app%3Dweb%26watch%3Dfalse'],
    ['a=b&resourceVersion=0&', 'a%3Db%26resourceVersion%3D0%26'],
    ['a=b#fragment', 'a%3Db%23fragment'],
    ['a==b', 'a%3D%3Db'],
    ['tier in (web, api)', 'tier+in+%28web%2C+api%29'],
    ['!team', '%21team'],
    ['a=b;c=d', 'a%3Db%3Bc%3Dd'],
    ['x=1\nHost: evil.example', 'x%3D1%0AHost%3A+evil.example'],
    ['\r\n\r\nGET / HTTP/1.1', '%0D%0A%0D%0AGET+%2F+HTTP%2F1.1'],
    ['ünï=1', '%C3%BCn%C3%AF%3D1'],
    ['%26', '%2526'],
    ['a+b', 'a%2Bb'],
  ];

  it.each(selectors)('labelSelector %j is one encoded parameter: %s', async (selector, encoded) => {
    const { events, lines: sent } = await watchLine({ labelSelector: selector });
    expect(events).toEqual([]);
    expect(sent).toEqual([`GET /api/v1/pods?watch=true&labelSelector=${encoded} HTTP/1.1`]);
    const query = new URLSearchParams(sent[0].split(' ')[1].split('?')[1]);
    expect([...query.keys()]).toEqual(['watch', 'labelSelector']);
    expect(query.get('labelSelector')).toBe(selector);
  });

  it.each(selectors)(
    'fieldSelector %j on a list is one encoded parameter: %s',
    async (selector, encoded) => {
      await firstValueFrom(fromList(tcp.kubeConfig(), pods, { fieldSelector: selector }));
      expect(lines).toEqual([`GET /api/v1/pods?fieldSelector=${encoded}&limit=500 HTTP/1.1`]);
    },
  );

  it('a resourceVersion and a namespace that try to add parameters stay in their place', async () => {
    const { lines: sent } = await watchLine({
      namespace: 'kube-system',
      resourceVersion: '1&watch=false',
      fieldSelector: 'metadata.name=a&limit=1',
    });
    expect(sent).toEqual([
      'GET /api/v1/namespaces/kube-system/pods?watch=true&fieldSelector=metadata.name%3Da%26limit%3D1' +
        '&resourceVersion=1%26watch%3Dfalse HTTP/1.1',
    ]);
  });

  it.each([1.5, -1, Number.NaN, Infinity])(
    'timeoutSeconds %p is refused before anything is sent',
    async (timeoutSeconds) => {
      expectRefused(await watchLine({ timeoutSeconds }));
    },
  );
});
