import { describe, expect, it } from '@jest/globals';
import { BUILTIN_RESOURCES } from '../../src/objects/builtinResources.js';
import {
  configmaps,
  deployments,
  events,
  namespaces,
  nodes,
  pods,
  replicasets,
  services,
} from '../../src/objects/resources.js';
import {
  isValidKind,
  kindOfPlural,
  singularOfKind,
  singularOfPlural,
} from '../../src/objects/ResourceType.js';

describe('one record of a resource type', () => {
  it("the library's refs agree with the built-in table on kind and scope", () => {
    for (const ref of [
      pods,
      deployments,
      services,
      nodes,
      namespaces,
      configmaps,
      replicasets,
      events,
    ]) {
      const type = BUILTIN_RESOURCES.find(
        (t) => t.group === ref.group && t.version === ref.version && t.plural === ref.plural,
      );
      expect({ plural: ref.plural, kind: type?.kind, namespaced: type?.namespaced }).toEqual({
        plural: ref.plural,
        kind: ref.kind,
        namespaced: ref.namespaced ?? true,
      });
    }
  });

  it('every built-in kind is valid, and its singular is the kind in lower case', () => {
    for (const type of BUILTIN_RESOURCES) {
      expect(isValidKind(type.kind)).toBe(true);
      expect(type.singular).toBe(singularOfKind(type.kind));
    }
  });

  it.each([
    ['pods', 'pod'],
    ['networkpolicies', 'networkpolicy'],
    ['ingresses', 'ingress'],
    ['statuses', 'status'],
    ['boxes', 'box'],
    ['patches', 'patch'],
    ['leases', 'lease'],
    ['databases', 'database'],
    ['data', 'data'],
  ])('guesses the singular of %s: %s', (plural, singular) => {
    expect(singularOfPlural(plural)).toBe(singular);
  });

  it('guesses a kind from a plural, the singular capitalised', () => {
    expect(kindOfPlural('widgets')).toBe('Widget');
    expect(kindOfPlural('policies')).toBe('Policy');
  });
});
