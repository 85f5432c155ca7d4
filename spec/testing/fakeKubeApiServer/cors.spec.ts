import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import http from 'node:http';
import { FakeKubeApiServer } from '../../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';

// cors: true lets pages on another loopback origin use the server (spec/browser runs one).

function ask(
  url: string,
  method: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('FakeKubeApiServer cors', () => {
  let withCors: FakeKubeApiServer;
  let without: FakeKubeApiServer;
  beforeAll(async () => {
    withCors = await FakeKubeApiServer.start({ cors: true });
    without = await FakeKubeApiServer.start();
  });
  afterAll(async () => {
    await withCors.stop();
    await without.stop();
  });

  const page = 'http://127.0.0.1:5173';
  const pods = '/api/v1/namespaces/default/pods';

  it('answers a preflight from a loopback origin, allowing the headers asked for, without reaching the API', async () => {
    const answer = await ask(withCors.url + pods, 'OPTIONS', {
      origin: page,
      'access-control-request-method': 'GET',
      'access-control-request-headers': 'authorization',
    });
    expect(answer.status).toBe(204);
    expect(answer.headers['access-control-allow-origin']).toBe(page);
    expect(answer.headers['access-control-allow-headers']).toBe('authorization');
    expect(withCors.requests).toHaveLength(0);
  });

  it('allows the origin of a loopback page and exposes Retry-After', async () => {
    const answer = await ask(withCors.url + pods, 'GET', {
      origin: 'http://localhost:8080',
      authorization: 'Bearer test-token',
    });
    expect(answer.status).toBe(200);
    expect(answer.headers['access-control-allow-origin']).toBe('http://localhost:8080');
    expect(answer.headers['access-control-expose-headers']).toMatch(/Retry-After/);
  });

  it('allows no other origin, and nothing without cors: true', async () => {
    const foreign = await ask(withCors.url + pods, 'GET', {
      origin: 'https://evil.example',
      authorization: 'Bearer test-token',
    });
    expect(foreign.headers['access-control-allow-origin']).toBeUndefined();
    const off = await ask(without.url + pods, 'OPTIONS', {
      origin: page,
      'access-control-request-method': 'GET',
    });
    expect(off.headers['access-control-allow-origin']).toBeUndefined();
  });
});
