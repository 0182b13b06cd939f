import { describe, expect, it } from 'vitest';
import { failureReport } from '../../src/report/format/failure.js';
import { buildReport } from '../../src/report/json.js';
import { junitXml } from '../../src/report/ci/junit.js';
import { junitSchemaErrors } from './junit-schema.js';
import { bakedRun, cancelledRun, restoredRun } from './runs.js';

const finishedAt = new Date('2026-12-03T10:00:07.160Z');

describe('junitXml', () => {
  it('writes one test case per object: the failed rollout fails with its diagnosis, an unchanged object passes', async () => {
    const xml = junitXml(
      buildReport(restoredRun, ['read 3 objects', 'deployment/web: <new> pods & "quotes"']),
      finishedAt,
    );
    expect(await junitSchemaErrors(xml)).toEqual([]);
    expect(xml).toContain(
      '<testsuite name="kguard apply" tests="3" failures="1" errors="0" skipped="0" time="7.160" timestamp="2026-12-03T10:00:00.000Z">',
    );
    expect(xml).toContain(
      '<testcase name="deployment/web (namespace shop)" classname="kguard.Deployment" time="4.214">',
    );
    expect(xml).toContain(
      '<failure message="new pods cannot pull their image &quot;xxxxxnginx:1.17&quot;: ImagePullBackOff" type="ImagePullBackOff">',
    );
    expect(xml).toContain(
      'next: check the image\nchanged by the apply: spec.template.spec.containers[0].image\nrestore: restored</failure>',
    );
    expect(xml).toContain(
      '<testcase name="configmap/settings (namespace shop)" classname="kguard.ConfigMap" time="0.000"/>',
    );
    expect(xml).toContain(
      '<testcase name="namespace/shop" classname="kguard.Namespace" time="0.000">\n      <system-out>unchanged by this apply: nothing to watch or restore</system-out>',
    );
    expect(xml).not.toContain('<skipped>');
    expect(xml).toContain('<system-out>read 3 objects\ndeployment/web: &lt;new&gt; pods &amp; "quotes"</system-out>');
  });

  it('skips a workload whose watch a signal stopped, with the signal as the reason', async () => {
    const xml = junitXml(buildReport(cancelledRun, []), finishedAt);
    expect(await junitSchemaErrors(xml)).toEqual([]);
    expect(xml).toContain('<skipped>stopped watching: interrupted by SIGINT</skipped>');
    expect(xml).not.toContain('another workload');
  });

  it("carries the container's last lines and the whole diagnosis in the failure, and the manifest's file and line on the test case", async () => {
    const report = buildReport(restoredRun, []);
    const web = {
      ...report.objects[0]!,
      logs: [
        {
          pod: 'web-7d9c6b8f4d-x2kqp',
          container: 'web',
          previous: true,
          lines: Array.from({ length: 30 }, (_line, index) => `line ${index + 1}`),
          error: null,
        },
      ],
    };
    const located = { ...report, objects: [web, ...report.objects.slice(1)] };
    const xml = junitXml(located, finishedAt, (ref) =>
      ref.kind === 'Deployment' ? { file: 'k8s/web.yaml', line: 12 } : undefined,
    );
    expect(await junitSchemaErrors(xml)).toEqual([]);
    expect(xml).toContain(
      '<testcase name="deployment/web (namespace shop)" classname="kguard.Deployment" time="4.214" file="k8s/web.yaml" line="12">',
    );
    const failure = /<failure [^>]*>([^<]*)<\/failure>/.exec(xml)![1]!;
    expect(failure.split('\n')).toEqual([
      'new pods cannot pull their image "xxxxxnginx:1.17": ImagePullBackOff',
      'manifest: k8s/web.yaml line 12',
      '  pod web-7d9c6b8f4d-x2kqp ...',
      'last lines of container web (pod web-7d9c6b8f4d-x2kqp, run before the restart):',
      ...Array.from({ length: 20 }, (_line, index) => `  | line ${index + 11}`),
      'next: check the image',
      'changed by the apply: spec.template.spec.containers[0].image',
      'restore: restored',
    ]);
    expect(xml).not.toMatch(/above/);
  });

  it('writes a test case per check and one for the bake, which fails with what broke and its last lines', async () => {
    const xml = junitXml(buildReport(bakedRun, []), finishedAt);
    expect(await junitSchemaErrors(xml)).toEqual([]);
    expect(xml).toContain('tests="5" failures="1" errors="0" skipped="0"');
    expect(xml).toContain('<testcase name="verify: curl -fsS web/healthz" classname="kguard.verify" time="0.040"/>');
    expect(xml).toContain(
      '<testcase name="verify job: shop/smoke-x2k4q (smoke.yaml)" classname="kguard.verify" time="3.100"/>',
    );
    expect(xml).toContain(
      '<testcase name="verify: curl -fsS web/healthz (during the bake)" classname="kguard.verify" time="0.035"/>',
    );
    expect(xml).toContain(
      '<failure message="deployment/web (namespace shop): container web of pod web-7d9c6b8f4d-x2kqp restarted (exit code 1, Error) &lt;now&gt;" type="workload">',
    );
    expect(xml).toContain(
      'last lines of container web (pod web-7d9c6b8f4d-x2kqp):\n  | panic: nil map\nnext: fix the app</failure>',
    );
  });

  it('writes an error case for a run that could not do its job', async () => {
    const xml = junitXml(
      failureReport({ outcome: 'error', exitCode: 2, message: 'the cluster is unreachable <127.0.0.1:1>' }),
      finishedAt,
    );
    expect(await junitSchemaErrors(xml)).toEqual([]);
    expect(xml).toContain('tests="1" failures="0" errors="1"');
    expect(xml).toContain('<error message="the cluster is unreachable &lt;127.0.0.1:1&gt;" type="error">');
  });

  it('is refused by the schema when it breaks the format (the validator is not a no-op)', async () => {
    const xml = junitXml(failureReport({ outcome: 'error', exitCode: 2, message: 'x' }), finishedAt).replace(
      '<testcase name="kguard apply"',
      '<testcase',
    );
    expect((await junitSchemaErrors(xml)).join('\n')).toMatch(/name.*required/);
  });
});
