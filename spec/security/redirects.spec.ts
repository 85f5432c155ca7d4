import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { setTimeout as sleep } from 'node:timers/promises';
import { firstValueFrom, lastValueFrom, toArray } from 'rxjs';
import { resumeFromResourceVersion } from '../../src/operators/resumeFromResourceVersion.js';
import { fromList } from '../../src/sources/fromList.js';
import { fromPodLogs } from '../../src/sources/fromPodLogs.js';
import { fromWatch } from '../../src/sources/fromWatch.js';
import { watchResource } from '../../src/watch.js';
import { RawServer, collect } from '../support/rawServer.js';
import { pods } from './support.js';

// A redirect is never followed, by any source: the other host sees no request at all, so no
// credential can reach it; the failure is reported with the 3xx status.
describe('redirects are never followed', () => {
  let api: RawServer;
  let elsewhere: RawServer;
  beforeAll(async () => {
    elsewhere = await RawServer.start((_req, res) => res.end('{"items":[]}'));
    api = await RawServer.start();
  });
  afterAll(async () => {
    await api.stop();
    await elsewhere.stop();
  });

  const redirect = (code: number, to: () => string) => {
    api.handler = (req, res) => {
      res.writeHead(code, { location: to() + (req.url ?? '') });
      res.end();
    };
  };

  it.each([301, 302, 303, 307, 308])(
    'a %i to another host: every source reports it, the other host sees nothing',
    async (code) => {
      redirect(code, () => elsewhere.url);
      api.requests.length = 0;
      const [event] = await collect(watchResource(api.kubeConfig('redirect-token'), pods));
      expect(event).toMatchObject({
        type: 'ERROR',
        error: { errorType: 'UNKNOWN_ERROR', statusCode: code },
      });
      expect(event.type === 'ERROR' && event.error.message).toMatch(/redirect not followed/);
      const observed = await lastValueFrom(fromWatch(api.kubeConfig(), pods).pipe(toArray()));
      expect(observed).toMatchObject([{ type: 'ERROR', error: { statusCode: code } }]);
      await expect(firstValueFrom(fromList(api.kubeConfig(), pods))).rejects.toMatchObject({
        statusCode: code,
      });
      await expect(
        firstValueFrom(fromPodLogs(api.kubeConfig(), { namespace: 'default', name: 'web-1' })),
      ).rejects.toMatchObject({ statusCode: code });
      expect(api.requests).toHaveLength(4);
      expect(elsewhere.requests).toHaveLength(0);
    },
  );

  it('a redirect to another path on the same host is not followed either', async () => {
    redirect(307, () => api.url + '/api/v1/namespaces/kube-system/secrets?x=');
    api.requests.length = 0;
    await collect(watchResource(api.kubeConfig(), pods));
    await firstValueFrom(fromList(api.kubeConfig(), pods)).catch(() => undefined);
    expect(api.requests.map((r) => r.path)).toEqual(['/api/v1/pods', '/api/v1/pods']);
  });

  it('a resumed watch stops on a redirect (a misconfigured server URL), never trying the Location', async () => {
    redirect(302, () => elsewhere.url);
    api.requests.length = 0;
    let error: unknown;
    const subscription = fromWatch(api.kubeConfig(), pods)
      .pipe(resumeFromResourceVersion({ initialState: 'none', random: () => 0.01 }))
      .subscribe({ error: (e: unknown) => (error = e) });
    await sleep(300);
    subscription.unsubscribe();
    expect(error).toMatchObject({ errorType: 'UNKNOWN_ERROR', statusCode: 302 });
    expect(api.requests).toHaveLength(1);
    expect(elsewhere.requests).toHaveLength(0);
  });
});
