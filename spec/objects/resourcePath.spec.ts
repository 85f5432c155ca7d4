import { describe, expect, it } from '@jest/globals';
import { resourcePath } from '../../src/objects/resourcePath.js';
import { deployments, pods, resource } from '../../src/objects/resources.js';
import { WatchError } from '../../src/WatchError.js';

describe('resourcePath', () => {
  it('builds core, group, namespaced and subresource paths', () => {
    expect(resourcePath(pods)).toBe('/api/v1/pods');
    expect(resourcePath(pods, { namespace: 'kube-system' })).toBe(
      '/api/v1/namespaces/kube-system/pods',
    );
    expect(resourcePath(deployments, { namespace: 'prod' })).toBe(
      '/apis/apps/v1/namespaces/prod/deployments',
    );
    expect(resourcePath(resource('stable.example.com/v1beta2', 'crontabs'))).toBe(
      '/apis/stable.example.com/v1beta2/crontabs',
    );
    expect(resourcePath(pods, { namespace: 'default', name: 'web.1', subresource: 'log' })).toBe(
      '/api/v1/namespaces/default/pods/web.1/log',
    );
  });

  it.each([
    [{ ...pods, plural: 'pods?watch=false' }, {}],
    [{ ...pods, plural: '../secrets' }, {}],
    [pods, { namespace: '../x' }],
    [pods, { namespace: 'a/b' }],
    [pods, { namespace: '' }],
    [pods, { namespace: 'x'.repeat(64) }],
    [pods, { name: 'a%2f..' }],
    [{ ...pods, version: 'v1/../v2' }, {}],
    [{ group: '', apiVersion: 'v1/../v2', plural: 'pods' }, {}],
    [{ ...pods, version: 'V1' }, {}],
    [{ group: 'apps/../x', version: 'v1', plural: 'deployments' }, {}],
    [{ group: 42, version: 'v1', plural: 'pods' }, {}],
  ])('rejects %j %j with a BAD_REQUEST WatchError', (ref, location) => {
    let error: unknown;
    try {
      resourcePath(ref as never, location);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(WatchError);
    expect(error).toMatchObject({ errorType: 'BAD_REQUEST', statusCode: 400 });
    expect((error as WatchError).resourcePath).not.toMatch(/[?#]|\/\.\.\//);
  });
});

describe('resource()', () => {
  it('parses group/version and version alone, and validates at once', () => {
    expect(resource('apps/v1', 'deployments')).toEqual({
      group: 'apps',
      version: 'v1',
      plural: 'deployments',
    });
    expect(resource('v1', 'pods', { kind: 'Pod' })).toEqual(pods);
    expect(resource('v1', 'nodes', { kind: 'Node', namespaced: false })).toMatchObject({
      kind: 'Node',
      namespaced: false,
    });
    // kube-apiserver's kind rule (isValidKind): letters and digits, a letter first.
    expect(() => resource('v1', 'pods', { kind: 'Po d' })).toThrow(TypeError);
    expect(() => resource('v1', 'pods', { kind: '1Pod' })).toThrow(TypeError);
    expect(() => resource('apps/v1', 'Deployments')).toThrow(WatchError);
    expect(() => resource('apps', 'deployments')).toThrow(/invalid version/);
  });
});

describe('a deprecated ref with apiVersion', () => {
  it('still builds the same path until 1.0', () => {
    const legacy = { group: 'apps', apiVersion: 'v1', plural: 'deployments' };
    expect(resourcePath(legacy, { namespace: 'a' })).toBe('/apis/apps/v1/namespaces/a/deployments');
  });
});
