// Tolerance through the real kubectl: kguard.dev/failures-allowed lets a Deployment whose
// containers crash a few times while a dependency starts roll out (exit 0) where the default
// policy restores it (exit 3); --readiness-grace fails a pod that runs but is never Ready after
// the grace, with its readiness probe's last failure, instead of waiting out --timeout.
import { describe, expect, it } from 'vitest';
import type { JsonReport } from '../../src/report/json.js';
import { deploymentYaml } from '../kube-sim/testing/kubectl.js';
import { sandbox, type Sandbox } from './harness.js';
import { sandboxFor } from './run-fixtures.js';

let env: Sandbox;
sandboxFor(sandbox, (fresh) => (env = fresh));

/** web with pod annotations (simulator knobs) and, when given, Deployment annotations and a readiness probe. */
function webYaml(
  podAnnotations: Record<string, string>,
  options: { annotations?: Record<string, string>; probe?: boolean } = {},
): string {
  let yaml = deploymentYaml('web', 'nginx:1.25', { replicas: 1 });
  const pod = Object.entries(podAnnotations)
    .map(([key, value]) => `        ${key}: ${JSON.stringify(value)}\n`)
    .join('');
  yaml = yaml.replace('  template:\n    metadata:\n', `  template:\n    metadata:\n      annotations:\n${pod}`);
  if (options.annotations) {
    const own = Object.entries(options.annotations)
      .map(([key, value]) => `    ${key}: ${JSON.stringify(value)}\n`)
      .join('');
    yaml = yaml.replace('metadata:\n  name: web\n', `metadata:\n  name: web\n  annotations:\n${own}`);
  }
  if (options.probe)
    yaml = yaml.replace(
      '        ports:\n',
      '        readinessProbe:\n          httpGet: { path: /healthz, port: 80 }\n          periodSeconds: 5\n        ports:\n',
    );
  return yaml;
}

async function kguardJson(text: string, extra: string[]) {
  const run = await env.kguard([
    'apply',
    '-f',
    await env.write('web.yaml', text),
    '--poll-interval',
    '300ms',
    '-o',
    'json',
    ...extra,
  ]);
  const report = JSON.parse(run.stdout) as JsonReport;
  return { ...run, report, web: report.objects.find((object) => object.kind === 'Deployment') };
}

// Each of the first five runs exits after 5 s, before its readiness probe passes (10 s), so the
// Deployment cannot look available between crashes; the sixth run stays up and becomes Ready.
const crashesFiveTimes = {
  'sim.kguard.dev/exit-code': '1',
  'sim.kguard.dev/run-seconds': '5',
  'sim.kguard.dev/crash-count': '5',
  'sim.kguard.dev/readiness-delay-seconds': '10',
};

describe('kguard.dev/failures-allowed', () => {
  it('without it, five crashes fail the rollout and it is undone (exit 3)', async () => {
    const run = await kguardJson(webYaml(crashesFiveTimes, { probe: true }), ['--timeout', '60s']);
    expect(run.exitCode, run.stderr).toBe(3);
    expect(run.web).toMatchObject({ verdict: 'failed', category: 'crash-loop' });
  });

  it('"8": the same five crashes are tolerated and the Deployment rolls out once its container stays up (exit 0)', async () => {
    const run = await kguardJson(
      webYaml(crashesFiveTimes, { probe: true, annotations: { 'kguard.dev/failures-allowed': '8' } }),
      ['--timeout', '60s'],
    );
    expect(run.stderr).toMatch(/restart|crash|CrashLoopBackOff/i);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.web).toMatchObject({ verdict: 'healthy' });
  });
});

describe('--readiness-grace', () => {
  it('a pod that runs but never passes its readiness probe fails after the grace, with the probe failure, long before --timeout (exit 3)', async () => {
    const started = Date.now();
    const run = await kguardJson(webYaml({ 'sim.kguard.dev/readiness': 'fail' }, { probe: true }), [
      '--timeout',
      '120s',
      '--readiness-grace',
      '3s',
    ]);
    expect(run.exitCode, run.stderr).toBe(3);
    expect(run.web).toMatchObject({ verdict: 'failed', reason: 'ContainersNotReady' });
    expect(run.stderr).toContain('Readiness probe failed: HTTP probe failed with statuscode: 503');
    expect(Date.now() - started).toBeLessThan(60_000);
  });
});
