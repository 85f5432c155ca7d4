// recordingApi: every successful write is told as what its answer describes; reads, failures
// and dry runs are not; the caller gets the answer unchanged.
import { describe, expect, it } from '@jest/globals';
import type { V1Pod } from '@kubernetes/client-node';
import type { ResourceApi } from '../../../src/client/write/ResourceApiTypes.js';
import { recordingApi } from '../../../src/controller/expectations/recordingApi.js';
import type { Written } from '../../../src/controller/expectations/Written.js';
import { pod } from '../../../src/testing/marbles/builders.js';
import { WatchError } from '../../../src/WatchError.js';

/** An api whose every method answers `answer` (or rejects with it when it is an Error). */
function answering(answer: unknown): ResourceApi<V1Pod> {
  const reply = async () => {
    if (answer instanceof Error) throw answer;
    return answer as never;
  };
  return {
    get: reply,
    list: reply,
    create: reply,
    replace: reply,
    patch: reply,
    apply: reply,
    delete: reply,
    status: { get: reply, replace: reply, patch: reply, apply: reply },
    scale: { get: reply, replace: reply, patch: reply },
  };
}

function recorded(answer: unknown) {
  const log: Array<[Written, string | undefined]> = [];
  const api = recordingApi(answering(answer), (written, namespace) =>
    log.push([written, namespace]),
  );
  return { api, log };
}

const web = pod('web', '12', { metadata: { namespace: 'shop' } });
const expected: Written = {
  kind: 'written',
  objectKey: 'shop/web',
  resourceVersion: '12',
  uid: 'uid-web',
};

describe('recordingApi', () => {
  it('records each write at the version and uid its answer carries, and returns the answer', async () => {
    const { api, log } = recorded(web);
    const patch = { type: 'merge' as const, namespace: 'shop' };
    const apply = { fieldManager: 'spec' };
    const config = { metadata: { name: 'web', namespace: 'shop' } };
    expect(await api.create(web)).toBe(web);
    await api.replace(web);
    await api.patch('web', {}, patch);
    await api.apply(config, apply);
    await api.status.replace(web);
    await api.status.patch('web', {}, patch);
    await api.status.apply(config, apply);
    await api.scale.replace({ metadata: { name: 'web', namespace: 'shop' } });
    await api.scale.patch('web', {}, patch);
    expect(log).toHaveLength(9);
    for (const entry of log) expect(entry).toEqual([expected, 'shop']);
  });

  it('records nothing for reads, failed writes and dry runs', async () => {
    const reads = recorded(web);
    await reads.api.get('web', { namespace: 'shop' });
    await reads.api.list();
    await reads.api.status.get('web', { namespace: 'shop' });
    await reads.api.create(web, { dryRun: true });
    await reads.api.delete('web', { namespace: 'shop', dryRun: true });
    expect(reads.log).toEqual([]);
    const failing = recorded(
      new WatchError('conflict', {
        errorType: 'CONFLICT',
        statusCode: 409,
        resourcePath: '/api/v1/namespaces/shop/pods',
      }),
    );
    await expect(failing.api.create(web)).rejects.toThrow('conflict');
    expect(failing.log).toEqual([]);
  });

  it('records a delete answered with a Status as gone, answered with the object as deleting', async () => {
    const status = recorded({
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Success',
      details: { name: 'web', kind: 'pods', uid: 'uid-web' },
    });
    await status.api.delete('web', { namespace: 'shop' });
    expect(status.log).toEqual([
      [{ kind: 'deleted', objectKey: 'shop/web', uid: 'uid-web' }, 'shop'],
    ]);
    const object = recorded(web);
    await object.api.delete('web', { namespace: 'shop' });
    expect(object.log).toEqual([[{ ...expected, kind: 'deleting' }, 'shop']]);
  });
});
