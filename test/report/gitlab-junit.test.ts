// kguard's JUnit report as GitLab reads it (gitlab-junit.ts follows GitLab's documented parser):
// the failing object's case shows the whole diagnosis and links to its manifest; every other
// object passes or is skipped with why.
import { describe, expect, it } from 'vitest';
import { failureReport } from '../../src/report/format/failure.js';
import { buildReport } from '../../src/report/json.js';
import { junitXml } from '../../src/report/ci/junit.js';
import { gitlabTestCases } from './gitlab-junit.js';
import { restoredRun } from './runs.js';

describe('the JUnit report read as GitLab reads it', () => {
  it('shows the failing Deployment as a failed case with the diagnosis as its text and its manifest file', () => {
    const report = buildReport(restoredRun, ['read 3 objects']);
    const web = {
      ...report.objects[0]!,
      logs: [
        { pod: 'web-1', container: 'web', previous: false, lines: ['FATAL: no <config> & no "defaults"'], error: null },
      ],
    };
    const xml = junitXml({ ...report, objects: [web, ...report.objects.slice(1)] }, new Date(), (ref) => ({
      file: `k8s/${ref.name}.yaml`,
      line: 3,
    }));
    const cases = gitlabTestCases(xml);
    expect(cases.map(({ suite, name, status, file }) => ({ suite, name, status, file }))).toEqual([
      { suite: 'kguard.Deployment', name: 'deployment/web (namespace shop)', status: 'failed', file: 'k8s/web.yaml' },
      {
        suite: 'kguard.ConfigMap',
        name: 'configmap/settings (namespace shop)',
        status: 'success',
        file: 'k8s/settings.yaml',
      },
      { suite: 'kguard.Namespace', name: 'namespace/shop', status: 'success', file: 'k8s/shop.yaml' },
    ]);
    const shown = cases[0]!.systemOutput!;
    expect(shown).toMatch(/^new pods cannot pull their image "xxxxxnginx:1\.17": ImagePullBackOff\n/);
    expect(shown).toContain('manifest: k8s/web.yaml line 3');
    expect(shown).toContain('last lines of container web (pod web-1):\n  | FATAL: no <config> & no "defaults"');
    expect(shown).toContain('next: check the image');
    expect(shown).toContain('restore: restored');
    expect(shown).not.toMatch(/above/);
    expect(cases[0]!.time).toBeCloseTo(4.214);
  });

  it('shows a run that could not start as one error case with its message', () => {
    const cases = gitlabTestCases(
      junitXml(failureReport({ outcome: 'error', exitCode: 2, message: 'the cluster is unreachable' }), new Date()),
    );
    expect(cases).toEqual([
      {
        suite: 'kguard',
        name: 'kguard apply',
        file: undefined,
        time: 0,
        status: 'error',
        systemOutput: 'the cluster is unreachable\n(exit 2)',
      },
    ]);
  });
});
