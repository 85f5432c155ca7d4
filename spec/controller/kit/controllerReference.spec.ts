import { describe, expect, it } from '@jest/globals';
import { controllerReference } from '../../../src/controller/kit/controllerReference.js';
import { deployments } from '../../../src/objects/resources.js';

describe('controllerReference', () => {
  const owner = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'shop', uid: 'u-1' },
  };

  it('names the owner as controller, blocking its foreground deletion', () => {
    expect(controllerReference(owner)).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      name: 'web',
      uid: 'u-1',
      controller: true,
      blockOwnerDeletion: true,
    });
  });

  it('takes apiVersion and kind from the resource ref for a metadata-only object', () => {
    const partial = {
      apiVersion: 'meta.k8s.io/v1',
      kind: 'PartialObjectMetadata',
      metadata: owner.metadata,
    };
    expect(controllerReference(partial, deployments)).toMatchObject({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
    });
    expect(() => controllerReference(partial)).toThrow(/apiVersion, kind/);
  });

  it.each([
    [{ ...owner, metadata: { name: 'web' } }, /metadata\.uid/],
    [{ ...owner, metadata: { uid: 'u' } }, /metadata\.name/],
    [{ metadata: owner.metadata }, /apiVersion, kind/],
    [null, /must be an object/],
  ])('refuses an owner it cannot name (%j)', (bad, message) => {
    expect(() => controllerReference(bad as never)).toThrow(TypeError);
    expect(() => controllerReference(bad as never)).toThrow(message);
  });
});
