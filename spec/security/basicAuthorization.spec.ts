import { describe, expect, it } from '@jest/globals';
import { KubeConfig } from '@kubernetes/client-node';
import { resolveKubeConfig } from '../../src/client/connection/kubeConfigConnection.js';
import { basicAuthorization } from '../../src/security/basicAuthorization.js';

describe('basicAuthorization', () => {
  it('encodes user:password in base64, from two arguments or the pair', () => {
    expect(basicAuthorization('u', 'p')).toBe('Basic dTpw');
    expect(basicAuthorization('u:p')).toBe('Basic dTpw');
    expect(basicAuthorization('admin', '')).toBe('Basic YWRtaW46');
  });

  it('encodes UTF-8, as Node’s Buffer does, where btoa alone would throw', () => {
    const expected = `Basic ${Buffer.from('jörg:pässwörd€').toString('base64')}`;
    expect(basicAuthorization('jörg', 'pässwörd€')).toBe(expected);
  });
});

describe('a kubeconfig user with a username and password', () => {
  it('resolves to the Basic header basicAuthorization makes', async () => {
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'c', server: 'https://127.0.0.1:6443', skipTLSVerify: true }],
      users: [{ name: 'u', username: 'jörg', password: 'p:w' }],
      contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
      currentContext: 'x',
    });
    const { headers } = await resolveKubeConfig(kc);
    expect(headers?.authorization).toBe(basicAuthorization('jörg', 'p:w'));
  });
});
