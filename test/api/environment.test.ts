import { describe, expect, it } from 'vitest';
import { canAnimate, missingKubeconfig, programName, useColour } from '../../src/api/environment.js';

const exists = (present: string[]) => (file: string) => present.includes(file);

describe('missingKubeconfig', () => {
  it('names a --kubeconfig file that does not exist', () => {
    expect(missingKubeconfig(['--kubeconfig=/k/nope'], {}, exists([]), '/home/u')).toMatch(
      /kubeconfig file \/k\/nope \(--kubeconfig\) does not exist/,
    );
    expect(missingKubeconfig(['--kubeconfig=/k/config'], {}, exists(['/k/config']), '/home/u')).toBeUndefined();
  });

  it('names KUBECONFIG when none of the files it lists exists, and accepts it when one does', () => {
    expect(missingKubeconfig([], { KUBECONFIG: '/a:/b' }, exists([]), '/home/u')).toMatch(
      /KUBECONFIG names \/a, \/b, and no such file exists/,
    );
    expect(missingKubeconfig([], { KUBECONFIG: '/a:/b' }, exists(['/b']), '/home/u')).toBeUndefined();
  });

  it('says there is no kubeconfig at all when ~/.kube/config is missing and KUBECONFIG unset', () => {
    expect(missingKubeconfig([], {}, exists([]), '/home/u')).toMatch(
      /no kubeconfig: \/home\/u\/\.kube\/config does not exist/,
    );
    expect(missingKubeconfig([], {}, exists(['/home/u/.kube/config']), '/home/u')).toBeUndefined();
  });

  it('needs no file inside a pod or with --server', () => {
    expect(missingKubeconfig([], { KUBERNETES_SERVICE_HOST: '10.0.0.1' }, exists([]), '/home/u')).toBeUndefined();
    expect(missingKubeconfig(['--server=https://k:6443'], {}, exists([]), '/home/u')).toBeUndefined();
  });
});

describe('useColour', () => {
  it.each([
    [{}, true, true],
    [{}, false, false],
    [{ NO_COLOR: '1' }, true, false],
    [{ NO_COLOR: '' }, true, true],
    [{ FORCE_COLOR: '0' }, true, false],
    [{ FORCE_COLOR: 'false' }, true, false],
    [{ FORCE_COLOR: '1' }, false, true],
    [{ FORCE_COLOR: '' }, false, true],
    [{ FORCE_COLOR: '1', NO_COLOR: '1' }, true, false],
    [{ TERM: 'dumb' }, true, false],
  ])('env %j on a terminal: %s → colour %s', (env, isTty, colour) => {
    expect(useColour(env, isTty)).toBe(colour);
  });
});

describe('canAnimate', () => {
  it('draws a spinner only on a terminal with a known, positive width and outside CI', () => {
    expect(canAnimate({ isTTY: true, columns: 80 }, {})).toBe(true);
    expect(canAnimate({ isTTY: true, columns: 0 }, {})).toBe(false);
    expect(canAnimate({ isTTY: true }, {})).toBe(false);
    expect(canAnimate({ isTTY: false, columns: 80 }, {})).toBe(false);
    expect(canAnimate({ isTTY: true, columns: 80 }, { CI: 'true' })).toBe(false);
  });
});

describe('programName', () => {
  it('is kubectl rollout-guard for the plugin, by its launcher or, in a release executable, by the executable', () => {
    expect(programName('/usr/lib/node_modules/kguard/bin/kubectl-rollout_guard')).toBe('kubectl rollout-guard');
    expect(programName('/usr/lib/node_modules/kguard/bin/kguard')).toBe('kguard');
    expect(programName('/$bunfs/root/kguard-linux-x64', '/home/me/.krew/bin/kubectl-rollout_guard')).toBe(
      'kubectl rollout-guard',
    );
    expect(programName('/$bunfs/root/kguard-linux-x64', '/usr/local/bin/kguard')).toBe('kguard');
  });
});
