// The real nodes' registries: Debian's docker-registry (distribution 2.8) on 127.0.0.1, plain HTTP,
// one process of the cluster's ProcessGroup (so the watchdog stops it too), its data in the
// cluster's temp dir. The open one holds the sandbox and test images (images.ts); a private one
// asks for htpasswd (bcrypt) credentials, as a registry behind Basic authentication does.

import { execFileSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { freePort } from '../free-port.js';
import { until } from './api.js';
import type { ProcessGroup } from './processes.js';

export interface ClusterRegistry {
  /** "127.0.0.1:PORT", the registry part of an image reference. */
  host: string;
  credentials?: { username: string; password: string };
}

/**
 * Writes the config.yml of a registry serving on `host` from `home`/data (errors only in its log;
 * deletes allowed if asked), and with `credentials` its bcrypt htpasswd file; resolves to the
 * config's path.
 */
export async function writeRegistryConfig(
  home: string,
  host: string,
  options: { realm: string; credentials?: { username: string; password: string }; deletes?: boolean },
): Promise<string> {
  const auth: string[] = [];
  if (options.credentials) {
    const { username, password } = options.credentials;
    // distribution's htpasswd access controller takes bcrypt entries only.
    await writeFile(
      join(home, 'htpasswd'),
      execFileSync('htpasswd', ['-Bbn', username, password], { encoding: 'utf8' }),
    );
    auth.push('auth:', '  htpasswd:', `    realm: ${options.realm}`, `    path: ${join(home, 'htpasswd')}`);
  }
  const config = join(home, 'config.yml');
  await writeFile(
    config,
    [
      'version: 0.1',
      'log:',
      '  level: error',
      '  accesslog:',
      '    disabled: true',
      'storage:',
      '  filesystem:',
      `    rootdirectory: ${join(home, 'data')}`,
      ...(options.deletes ? ['  delete:', '    enabled: true'] : []),
      'http:',
      `  addr: ${host}`,
      ...auth,
      '',
    ].join('\n'),
  );
  return config;
}

export async function startRegistry(
  group: ProcessGroup,
  dir: string,
  name: string,
  options: { credentials?: { username: string; password: string }; check?: () => void } = {},
): Promise<ClusterRegistry> {
  const home = join(dir, name);
  await mkdir(home, { recursive: true });
  const host = `127.0.0.1:${await freePort()}`;
  const config = await writeRegistryConfig(home, host, {
    realm: name,
    credentials: options.credentials,
    deletes: true,
  });
  group.start(name, 'docker-registry', ['serve', config]);
  // Ready when /v2/ answers at all (401 when it wants credentials).
  await until(
    `${name} (docker-registry) did not answer on ${host}`,
    20_000,
    async () => (await fetch(`http://${host}/v2/`)).status > 0,
    options.check,
  );
  return { host, credentials: options.credentials };
}
