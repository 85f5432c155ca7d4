import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { V1Deployment } from '@kubernetes/client-node';
import { resourceApi } from '../../../src/client/write/resourceApi.js';
import { retryOnConflict } from '../../../src/client/write/retryOnConflict.js';
import { isConflict, WatchError } from '../../../src/WatchError.js';
import { deployments } from '../../../src/objects/resources.js';
import { RawServer } from '../../support/rawServer.js';

// What kube-apiserver answers that the test server does not (yet): server-side apply, its
// conflicts and the status subresource, from recorded answers on a raw loopback server. Each
// request's body is kept, to check what was sent.

/** kube-apiserver's answer to an apply that conflicts with kubectl's client-side apply (recorded). */
const APPLY_CONFLICT = JSON.stringify({
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message:
    'Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using apps/v1: .spec.replicas',
  reason: 'Conflict',
  details: {
    causes: [
      {
        type: 'FieldManagerConflict',
        message: 'conflict with "kubectl-client-side-apply" using apps/v1',
        field: '.spec.replicas',
      },
    ],
  },
  code: 409,
});

describe('resourceApi against recorded kube-apiserver answers', () => {
  let raw: RawServer;
  const bodies: unknown[] = [];
  /** The next answers, in order: [status, body]; the last one repeats. */
  let answers: Array<[number, string | ((body: any) => string)]> = [];
  beforeEach(async () => {
    bodies.length = 0;
    raw = await RawServer.start((req: IncomingMessage, res: ServerResponse) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        const body = text ? JSON.parse(text) : undefined;
        bodies.push(body);
        const [status, answer] = answers.length > 1 ? answers.shift()! : answers[0];
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(typeof answer === 'function' ? answer(body) : answer);
      });
    });
  });
  afterEach(() => raw.stop());
  const echo = (body: unknown) =>
    JSON.stringify({
      ...(body as object),
      metadata: { ...(body as any)?.metadata, resourceVersion: '7' },
    });

  it('apply sends the configuration as JSON with apiVersion and kind from the ref, without changing it', async () => {
    answers = [[200, echo]];
    const api = resourceApi<V1Deployment>(raw.kubeConfig(), deployments);
    const config = { metadata: { name: 'web', namespace: 'shop' }, spec: { replicas: 2 } };
    const applied = await api.apply(config, { fieldManager: 'op' });
    expect(applied.metadata?.resourceVersion).toBe('7');
    expect(bodies).toEqual([
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'web', namespace: 'shop' },
        spec: { replicas: 2 },
      },
    ]);
    expect(config).toEqual({ metadata: { name: 'web', namespace: 'shop' }, spec: { replicas: 2 } });
    const [request] = raw.requests;
    expect([request.method, request.path, request.rawQuery]).toEqual([
      'PATCH',
      '/apis/apps/v1/namespaces/shop/deployments/web',
      'fieldManager=op',
    ]);
    expect(request.headers['content-type']).toBe('application/apply-patch+yaml');
    expect(request.headers.accept).toBe('application/json');
  });

  it('a ref written with the deprecated apiVersion (the version in the group) works as one with version', async () => {
    answers = [[200, echo]];
    const legacy = { group: 'apps', apiVersion: 'v1', plural: 'deployments', kind: 'Deployment' };
    const api = resourceApi<V1Deployment>(raw.kubeConfig(), legacy);
    await api.apply({ metadata: { name: 'web', namespace: 'shop' } }, { fieldManager: 'op' });
    expect(raw.requests[0].path).toBe('/apis/apps/v1/namespaces/shop/deployments/web');
    expect(bodies[0]).toMatchObject({ apiVersion: 'apps/v1', kind: 'Deployment' });
  });

  it('a server-side apply conflict rejects with CONFLICT and its conflicts; force=true takes over', async () => {
    answers = [
      [409, APPLY_CONFLICT],
      [200, echo],
    ];
    const api = resourceApi<V1Deployment>(raw.kubeConfig(), deployments);
    const config = { metadata: { name: 'web', namespace: 'shop' }, spec: { replicas: 2 } };
    const error = await api.apply(config, { fieldManager: 'op' }).catch((e: WatchError) => e);
    expect(error).toBeInstanceOf(WatchError);
    expect(error).toMatchObject({ errorType: 'CONFLICT', statusCode: 409, reason: 'Conflict' });
    expect(isConflict(error)).toBe(true);
    expect((error as WatchError).conflicts).toEqual([
      {
        manager: 'kubectl-client-side-apply',
        field: '.spec.replicas',
        message: 'conflict with "kubectl-client-side-apply" using apps/v1',
      },
    ]);
    expect((error as WatchError).resourcePath).toBe(
      '/apis/apps/v1/namespaces/shop/deployments/web',
    );
    await api.apply(config, { fieldManager: 'op', force: true });
    expect(raw.requests.map((r) => r.rawQuery)).toEqual([
      'fieldManager=op',
      'fieldManager=op&force=true',
    ]);
  });

  it('retryOnConflict re-runs a write that conflicts until it passes', async () => {
    answers = [
      [409, APPLY_CONFLICT],
      [409, APPLY_CONFLICT],
      [200, echo],
    ];
    const api = resourceApi<V1Deployment>(raw.kubeConfig(), deployments);
    const config = { metadata: { name: 'web', namespace: 'shop' } };
    const seen: number[] = [];
    const applied = await retryOnConflict((attempt) => {
      seen.push(attempt);
      return api.apply(config, { fieldManager: 'op' });
    });
    expect(applied.metadata?.name).toBe('web');
    expect(seen).toEqual([1, 2, 3]);
  });

  it('the status subresource: get, replace, patch and apply go to .../status with the object kind', async () => {
    answers = [[200, echo]];
    const api = resourceApi<V1Deployment>(raw.kubeConfig(), deployments);
    const object: V1Deployment = {
      metadata: { name: 'web', namespace: 'shop', resourceVersion: '5' },
      status: { replicas: 1 },
    };
    await api.status.get('web', { namespace: 'shop' });
    await api.status.replace(object);
    await api.status.patch(
      'web',
      { status: { replicas: 2 } },
      { namespace: 'shop', type: 'merge' },
    );
    await api.status.apply(
      { metadata: { name: 'web', namespace: 'shop' }, status: { observedGeneration: 3 } },
      { fieldManager: 'op' },
    );
    const path = '/apis/apps/v1/namespaces/shop/deployments/web/status';
    expect(
      raw.requests.map((r) => `${r.method} ${r.path} ${r.headers['content-type'] ?? '-'}`),
    ).toEqual([
      `GET ${path} -`,
      `PUT ${path} application/json`,
      `PATCH ${path} application/merge-patch+json`,
      `PATCH ${path} application/apply-patch+yaml`,
    ]);
    expect(bodies.slice(1)).toEqual([
      { apiVersion: 'apps/v1', kind: 'Deployment', ...object },
      { status: { replicas: 2 } },
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'web', namespace: 'shop' },
        status: { observedGeneration: 3 },
      },
    ]);
  });

  it('delete sends a DeleteOptions body and resolves with what the server answered', async () => {
    const status = {
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Success',
      details: { name: 'web' },
    };
    answers = [[200, JSON.stringify(status)]];
    const api = resourceApi(raw.kubeConfig(), deployments);
    const answer = await api.delete('web', {
      namespace: 'shop',
      propagationPolicy: 'Foreground',
      preconditions: { uid: 'u-1', resourceVersion: '9' },
      gracePeriodSeconds: 0,
      dryRun: true,
    });
    expect(answer).toEqual(status);
    expect(bodies).toEqual([
      {
        kind: 'DeleteOptions',
        apiVersion: 'v1',
        propagationPolicy: 'Foreground',
        preconditions: { uid: 'u-1', resourceVersion: '9' },
        gracePeriodSeconds: 0,
        // in the body, where kube-apiserver reads a delete's options (as client-go sends them)
        dryRun: ['All'],
      },
    ]);
    expect(raw.requests[0].rawQuery).toBe('dryRun=All');
  });
});
