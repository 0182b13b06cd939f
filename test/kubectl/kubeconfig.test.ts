// The run's target from the kubeconfig file itself, in the plain case only: anything only kubectl
// resolves (several files merged, a server or user on the command line, a context it cannot find)
// is left to `kubectl config view`.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubeconfigFile, readKubeconfigTarget, targetOfKubeconfig } from '../../src/kubectl/kubeconfig.js';
import { kubeconfigText } from './kubeconfig-fixture.js';

const KUBECONFIG = kubeconfigText('prod');

describe('kubeconfigFile', () => {
  it('is the --kubeconfig file, else a KUBECONFIG of one path, else ~/.kube/config', () => {
    expect(kubeconfigFile(['--kubeconfig=/k/flag'], { KUBECONFIG: '/k/env' }, '/home/u')).toBe('/k/flag');
    expect(kubeconfigFile([], { KUBECONFIG: '/k/env' }, '/home/u')).toBe('/k/env');
    expect(kubeconfigFile([], {}, '/home/u')).toBe('/home/u/.kube/config');
  });

  it('leaves to kubectl what only it resolves: merged files, a server or user on the command line', () => {
    expect(kubeconfigFile([], { KUBECONFIG: `/a${path.delimiter}/b` }, '/home/u')).toBeUndefined();
    expect(kubeconfigFile(['--server=https://x'], {}, '/home/u')).toBeUndefined();
    expect(kubeconfigFile(['--user=other'], {}, '/home/u')).toBeUndefined();
    expect(kubeconfigFile(['--cluster=other'], {}, '/home/u')).toBeUndefined();
    expect(kubeconfigFile(['--token=secret'], {}, '/home/u')).toBeUndefined();
  });
});

describe('targetOfKubeconfig', () => {
  it('names the current context, its cluster, user and namespace, as config view --minify does', () => {
    expect(targetOfKubeconfig(KUBECONFIG, parse)).toEqual({
      context: 'prod',
      cluster: 'prod-cluster',
      user: 'deployer',
      namespace: 'shop',
    });
  });

  it('takes the --context given, with the namespace default when the context names none', () => {
    expect(targetOfKubeconfig(KUBECONFIG, parse, 'dev')).toEqual({
      context: 'dev',
      cluster: 'dev-cluster',
      user: 'dev-user',
      namespace: 'default',
    });
  });

  it('is undefined (kubectl decides) for an unknown or twice-named context, no current context, or no YAML', () => {
    expect(targetOfKubeconfig(KUBECONFIG, parse, 'staging')).toBeUndefined();
    expect(targetOfKubeconfig(KUBECONFIG.replace('- name: dev\n', '- name: prod\n'), parse)).toBeUndefined();
    expect(targetOfKubeconfig(KUBECONFIG.replace('current-context: prod\n', ''), parse)).toBeUndefined();
    expect(targetOfKubeconfig('{ not: [yaml', parse)).toBeUndefined();
  });
});

describe('readKubeconfigTarget', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'kguard-kubeconfig-'));
    await writeFile(path.join(dir, 'config'), KUBECONFIG);
  });
  afterAll(async () => rm(dir, { recursive: true, force: true }));

  it('reads the one file, and is undefined for a file that is not there', async () => {
    expect((await readKubeconfigTarget([], { KUBECONFIG: path.join(dir, 'config') }))?.cluster).toBe('prod-cluster');
    expect(await readKubeconfigTarget([`--kubeconfig=${path.join(dir, 'missing')}`], {})).toBeUndefined();
  });
});
