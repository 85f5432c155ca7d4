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
    [{ ...pods, apiVersion: 'v1/../v2' }, {}],
    [{ ...pods, apiVersion: 'V1' }, {}],
    [{ group: 'apps/../x', apiVersion: 'v1', plural: 'deployments' }, {}],
    [{ group: 42, apiVersion: 'v1', plural: 'pods' }, {}],
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
      apiVersion: 'v1',
      plural: 'deployments',
    });
    expect(resource('v1', 'pods')).toEqual(pods);
    expect(() => resource('apps/v1', 'Deployments')).toThrow(WatchError);
    expect(() => resource('apps', 'deployments')).toThrow(/invalid apiVersion/);
  });
});
