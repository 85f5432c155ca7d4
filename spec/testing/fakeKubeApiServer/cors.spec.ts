import { afterEach, describe, expect, it } from '@jest/globals';
import { pods } from '../../../src/objects/resources.js';
import { FakeKubeApiServer } from '../../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';
import { pod } from '../../../src/testing/marbles/builders.js';
import { get } from './client.js';

const preflight = (origin: string) => ({
  method: 'OPTIONS',
  token: null,
  headers: {
    origin,
    'access-control-request-method': 'GET',
    'access-control-request-headers': 'authorization,accept',
  },
});

describe('FakeKubeApiServer cors: true', () => {
  let server: FakeKubeApiServer;
  afterEach(() => server.stop());

  it('answers preflights from loopback origins, before authentication', async () => {
    server = await FakeKubeApiServer.start({ cors: true });
    for (const origin of [
      'http://127.0.0.1:5173',
      'https://localhost:8443',
      'http://[::1]:3000',
      'http://localhost',
    ]) {
      const r = await get(server, '/api/v1/pods', preflight(origin));
      expect([origin, r.status]).toEqual([origin, 204]);
      expect(r.headers).toMatchObject({
        'access-control-allow-origin': origin,
        'access-control-allow-methods': 'GET, POST, PUT, PATCH, DELETE',
        'access-control-allow-headers': 'authorization,accept',
        vary: 'Origin',
      });
    }
    for (const origin of ['http://evil.example', 'http://127.0.0.1.evil.example', 'null']) {
      const r = await get(server, '/api/v1/pods', preflight(origin));
      expect([origin, r.status, r.json.kind]).toEqual([origin, 403, 'Status']);
      expect(r.headers['access-control-allow-origin']).toBeUndefined();
    }
  });

  it('lets a loopback origin read answers, errors included, and exposes their headers', async () => {
    server = await FakeKubeApiServer.start({ cors: true });
    server.create(pods, pod('a', ''));
    const origin = 'http://127.0.0.1:5173';
    const ok = await get(server, '/api/v1/pods', { headers: { origin } });
    expect(ok.headers['access-control-allow-origin']).toBe(origin);
    expect(ok.headers['access-control-expose-headers']).toMatch(/Retry-After/);
    const refused = await get(server, '/api/v1/pods', { token: 'wrong', headers: { origin } });
    expect([refused.status, refused.headers['access-control-allow-origin']]).toEqual([401, origin]);
    const other = await get(server, '/api/v1/pods', { headers: { origin: 'http://evil.example' } });
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('without cors, no CORS headers and OPTIONS is no preflight', async () => {
    server = await FakeKubeApiServer.start();
    const r = await get(server, '/api/v1/pods', preflight('http://127.0.0.1:5173'));
    expect(r.status).toBe(401);
    expect(r.headers['access-control-allow-origin']).toBeUndefined();
  });
});
