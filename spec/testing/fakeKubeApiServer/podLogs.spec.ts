import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { pods } from '../../../src/objects/resources.js';
import { FakeKubeApiServer } from '../../../src/testing/fakeKubeApiServer/FakeKubeApiServer.js';
import { pod } from '../../../src/testing/marbles/builders.js';
import { get, Stream } from './client.js';

const LOG = '/api/v1/namespaces/default/pods/web/log';

describe('FakeKubeApiServer pod logs', () => {
  let server: FakeKubeApiServer;
  beforeEach(async () => {
    server = await FakeKubeApiServer.start();
    server.create(pods, pod('web', '0'));
  });
  afterEach(() => server.stop());

  it('answers text/plain, one line per log line', async () => {
    server.appendLog('default', 'web', 'one');
    server.appendLog('default', 'web', 'two');
    const reply = await get(server, LOG);
    expect(reply.status).toBe(200);
    expect(reply.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(reply.body).toBe('one\ntwo\n');
    expect((await get(server, '/api/v1/namespaces/default/pods/quiet/log')).status).toBe(404);
    expect((await get(server, '/api/v1/namespaces/default/pods/web/log')).status).toBe(200);
  });

  it('answers 404 Status for an unknown pod', async () => {
    const reply = await get(server, '/api/v1/namespaces/default/pods/nope/log');
    expect(reply.status).toBe(404);
    expect(reply.json).toMatchObject({
      kind: 'Status',
      reason: 'NotFound',
      message: 'pods "nope" not found',
    });
  });

  it('tailLines, sinceSeconds, timestamps and container', async () => {
    for (const l of ['1', '2', '3']) server.appendLog('default', 'web', l, 'main');
    server.appendLog('default', 'web', 'side', 'sidecar');
    server.appendLog('default', 'web', 'both');
    expect((await get(server, `${LOG}?tailLines=2`)).body).toBe('side\nboth\n');
    expect((await get(server, `${LOG}?tailLines=0`)).body).toBe('');
    expect((await get(server, `${LOG}?container=main`)).body).toBe('1\n2\n3\nboth\n');
    expect((await get(server, `${LOG}?container=sidecar&tailLines=1`)).body).toBe('both\n');
    expect((await get(server, `${LOG}?sinceSeconds=60`)).body.split('\n')).toHaveLength(6);
    const stamped = (await get(server, `${LOG}?timestamps=true&tailLines=1`)).body;
    expect(stamped).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z both\n$/);
    expect((await get(server, `${LOG}?tailLines=x`)).status).toBe(400);
  });

  it('follow=true streams new lines until endLogs', async () => {
    server.appendLog('default', 'web', 'before');
    const s = new Stream(server, `${LOG}?follow=true`);
    expect(await s.waitForLines(1)).toEqual(['before']);
    server.appendLog('default', 'web', 'after');
    server.appendLog('default', 'other', 'not mine');
    expect(await s.waitForLines(2)).toEqual(['before', 'after']);
    server.endLogs('default', 'web');
    expect(await s.ended).toEqual({ complete: true });
    const again = new Stream(server, `${LOG}?follow=true`);
    expect(await again.ended).toEqual({ complete: true });
    expect(again.lines).toEqual(['before', 'after']);
  });

  it('follow streams end when the server stops', async () => {
    const s = new Stream(server, `${LOG}?follow=1`);
    await s.responded;
    await server.stop();
    await s.ended;
    expect(server.openConnections).toBe(0);
  });

  it('appendLog re-opens an ended log: a later follow=true streams again', async () => {
    server.appendLog('default', 'web', 'first run');
    server.endLogs('default', 'web');
    server.appendLog('default', 'web', 'restarted');
    const s = new Stream(server, `${LOG}?follow=true`);
    expect(await s.waitForLines(2)).toEqual(['first run', 'restarted']);
    server.appendLog('default', 'web', 'live');
    expect(await s.waitForLines(3)).toEqual(['first run', 'restarted', 'live']);
    s.close();
  });

  it('fail() hits pod logs too unless told to match watches or lists', async () => {
    server.faults.fail(500, { match: 'list' });
    expect((await get(server, LOG)).status).toBe(200);
    server.faults.reset();
    server.faults.fail(500);
    expect((await get(server, LOG)).status).toBe(500);
  });
});
