// Pull credentials chosen as the kubelet chooses them (pkg/credentialprovider/keyring.go).
import { describe, expect, it } from 'vitest';
import { credentialsOfSecret, lookup, makeKeyring, urlsMatch } from '../../src/images/keyring.js';

const secret = (type: string, key: string, config: unknown) => ({
  metadata: { name: 'regcred' },
  type,
  data: { [key]: Buffer.from(JSON.stringify(config)).toString('base64') },
});

describe('pull Secrets', () => {
  it('reads .dockerconfigjson auths and .dockercfg, the auth field winning over username/password', () => {
    const json = credentialsOfSecret(
      secret('kubernetes.io/dockerconfigjson', '.dockerconfigjson', {
        auths: { 'registry.io': { username: 'x', password: 'y', auth: Buffer.from('u:p:w').toString('base64') } },
      }),
    );
    expect(json).toEqual([
      ['registry.io', { username: 'u', password: 'p:w', source: 'secret regcred, key registry.io' }],
    ]);
    const cfg = credentialsOfSecret(
      secret('kubernetes.io/dockercfg', '.dockercfg', { 'quay.io': { username: 'a', password: 'b' } }),
    );
    expect(cfg.map(([key]) => key)).toEqual(['quay.io']);
    expect(credentialsOfSecret(secret('Opaque', '.dockerconfigjson', { auths: {} }))).toEqual([]);
  });

  it('matches the most specific key first; globs match one host part; ports must be equal', () => {
    const credential = (source: string) => ({ username: 'u', password: 'p', source });
    const keyring = makeKeyring([
      ['quay.io', credential('host')],
      ['https://quay.io/team', credential('team')],
      ['*.azurecr.io', credential('glob')],
      ['https://index.docker.io/v1/', credential('hub')],
      ['registry.io:5000', credential('port')],
    ]);
    expect(lookup(keyring, 'quay.io/team/app').map((found) => found.source)).toEqual(['team', 'host']);
    expect(lookup(keyring, 'quay.io/other/app').map((found) => found.source)).toEqual(['host']);
    expect(lookup(keyring, 'me.azurecr.io/app').map((found) => found.source)).toEqual(['glob']);
    expect(lookup(keyring, 'a.b.azurecr.io/app')).toEqual([]);
    expect(lookup(keyring, 'docker.io/library/nginx').map((found) => found.source)).toEqual(['hub']);
    expect(lookup(keyring, 'registry.io/app')).toEqual([]);
    expect(urlsMatch('registry.io:5000', 'registry.io:5000/app')).toBe(true);
  });
});
