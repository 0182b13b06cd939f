// Machine-readable output and input from stdin, end to end.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { JsonReport } from '../../src/report/json.js';
import { deploymentYaml } from '../kube-sim/testing/kubectl.js';
import { eventually, normalize, sandbox, type Sandbox } from './harness.js';

/** An image whose pulls are throttled for ever: its rollout stays in progress until kguard is stopped. */
const THROTTLED = 'registry.example.com/shop/web:2.0';

let env: Sandbox;
beforeEach(async () => {
  env = await sandbox({
    scenario: { registry: { 'xxxxxnginx:1.17': 'no-repository', [THROTTLED]: { rateLimitedPulls: 1_000_000 } } },
  });
});
afterEach(async () => {
  await env.stop();
});

describe('kguard apply --output json', () => {
  it('prints one JSON report on stdout with verdict, reason, pods and rollback; logs go to stderr', async () => {
    const base = await env.write('base.yaml', deploymentYaml('web', 'nginx:1.25'));
    expect((await env.kguard(['apply', '-f', base, '--poll-interval', '300ms'])).exitCode).toBe(0);
    const bad = await env.write('bad.yaml', deploymentYaml('web', 'xxxxxnginx:1.17'));
    const run = await env.kguard(['apply', '-f', bad, '--poll-interval', '300ms', '--output', 'json']);
    expect(run.exitCode, run.stderr).toBe(3);
    const report = JSON.parse(run.stdout) as JsonReport;
    expect(report).toMatchObject({
      reportVersion: 3,
      outcome: 'rolled-back',
      exitCode: 3,
      rollbackMode: 'all',
      dryRun: false,
    });
    expect(report.applied).toEqual([{ resource: 'deployment.apps', name: 'web', action: 'configured' }]);
    const [web] = report.objects;
    expect(web).toMatchObject({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      name: 'web',
      namespace: 'default',
      change: 'configured',
      tracked: true,
      verdict: 'failed',
      category: 'image-pull',
      restore: { status: 'restored', differences: [], healthyAfterRestore: true },
    });
    expect(web?.changedFields).toContain('spec.template.spec.containers[0].image');
    expect(['ImagePullBackOff', 'ErrImagePull']).toContain(web?.reason);
    expect(web?.pods.length).toBeGreaterThan(0);
    expect(web?.pods[0]?.message).toContain('xxxxxnginx:1.17');
    expect(run.stderr).toContain('deployment/web (namespace default): put back as it was before the apply');
    expect(report.messages).toContain('deployment/web (namespace default): put back as it was before the apply');
    // Counted: at least the proxy, the server dry run and the apply (test/e2e/costs.test.ts has the exact counts).
    expect(report.kubectlProcesses).toBeGreaterThanOrEqual(3);
  });

  it('prints a JSON error report for bad input, with the same exit code as text mode', async () => {
    const run = await env.kguard(['apply', '-f', 'missing.yaml', '--output', 'json']);
    expect(run.exitCode).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({ outcome: 'error', exitCode: 1 });
  });
});

describe('kguard apply -f -', () => {
  it('reads manifests from stdin and applies exactly those', async () => {
    const run = await env.kguard(['apply', '-f', '-', '--poll-interval', '300ms'], {
      input: deploymentYaml('piped', 'nginx:1.25'),
    });
    expect(run.exitCode, run.output).toBe(0);
    expect(run.output).toContain('deployment.apps/piped created');
    expect(run.output).toContain('deployment/piped (namespace default): rolled out');
  });
});

describe('kguard apply in GitHub Actions', () => {
  it('annotates the failure with ::error and writes a job summary', async () => {
    await env.deployHealthy('web');
    const bad = await env.write('bad.yaml', deploymentYaml('web', 'xxxxxnginx:1.17'));
    const summary = join(env.dir, 'step-summary.md');
    const run = await env.kguard(['apply', '-f', bad, '--poll-interval', '300ms'], {
      env: { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary },
    });
    expect(run.exitCode, run.output).toBe(3);
    // The annotation points at the manifest line of the failing Deployment (relative to the workspace).
    expect(run.stderr).toMatch(
      /^::error file=bad\.yaml,line=1,title=kguard%3A deployment\/web \(namespace default\)::deployment\/web \(namespace default\): new pods cannot pull image "xxxxxnginx:1.17"/m,
    );
    const markdown = normalize(await readFile(summary, 'utf8'));
    expect(markdown.split('\n')[0]).toBe(
      '### ✖ kguard: the apply failed and the cluster was restored to its state before the apply (exit 3)',
    );
    expect(markdown).toMatch(
      /^\| deployment\/web \(namespace default\) \| changed: .*spec\.template\.spec\.containers\[0\]\.image \| ✖ new pods cannot pull image "xxxxxnginx:1\.17"[^|]* \| ↩ put back as it was before the apply<br>↩ restored and healthy again/m,
    );
    // The folded log says how many lines it shows, and shows that many.
    const counted = Number(markdown.match(/<summary>kguard log \((\d+) lines\)<\/summary>/)?.[1]);
    expect(counted).toBe((markdown.match(/<pre>([\s\S]*?)<\/pre>/)?.[1] ?? '').split('\n').length);
  });
});

describe('what a stopped watch says', () => {
  it('on SIGINT during the watch of two workloads, names the signal for each, not a failure of the other', async () => {
    await env.deployHealthy('web');
    await env.deployHealthy('api');
    const file = await env.write(
      'both.yaml',
      `${deploymentYaml('web', THROTTLED)}---\n${deploymentYaml('api', THROTTLED)}`,
    );
    const running = env.kguardProcess(['apply', '-f', file, '--poll-interval', '300ms', '--timeout', '60s']);
    await eventually(() =>
      /deployment\/web \(namespace default\): 0\/2 new pods ready/.test(running.output()) &&
      /deployment\/api \(namespace default\): 0\/2 new pods ready/.test(running.output())
        ? true
        : undefined,
    );
    running.child.kill('SIGINT');
    const run = await running.done;
    expect(run.exitCode, run.output).toBe(130);
    for (const name of ['web', 'api'])
      expect(run.output).toMatch(
        new RegExp(
          `^• deployment/${name} \\(namespace default\\): stopped watching at \\d/2 new pods ready \\([^\\n]*\\): interrupted by SIGINT; restoring what this apply changed$`,
          'm',
        ),
      );
    expect(run.output).not.toContain('because another workload of this apply failed');
    expect(env.imageOf('web')).toBe('nginx:1.25');
    expect(env.imageOf('api')).toBe('nginx:1.25');
  });
});

describe('progress lines in a CI log', () => {
  it('prints a crash loop flapping between ready counts as one progress line per 5 s, not one per flip (new kinds of wait at once)', async () => {
    await env.deployHealthy('web');
    // Each container runs 1 simulated second (Ready meanwhile: no readiness probe), then exits 1:
    // the ready count flips every poll until the crash loop is the verdict.
    const crashing = deploymentYaml('web', 'nginx:1.26', { replicas: 4 }).replace(
      /template:\n(\s+)metadata:\n/,
      'template:\n$1metadata:\n$1  annotations:\n$1    sim.kguard.dev/exit-code: "1"\n$1    sim.kguard.dev/run-seconds: "1"\n',
    );
    const file = await env.write('crash.yaml', crashing);
    const run = await env.kguard(['apply', '-f', file, '--poll-interval', '300ms', '--timeout', '60s']);
    expect(run.exitCode, run.output).toBe(3);
    const verdict = run.stdout.match(
      /^✖ deployment\/web \(namespace default\): new pods cannot stay running .*\(after ([\d.]+)s\)$/m,
    );
    expect(verdict, run.output).not.toBeNull();
    const progressLines = run.stdout
      .split('\n')
      .filter((line) => /^• deployment\/web \(namespace default\): \d\/4 new pods ready/.test(line));
    // News at once (the first line, each new kind of wait), a change of counts only at most once
    // every 5 s until the verdict: unthrottled, this run printed 23 lines of 2 kinds in 4.4 s.
    const kinds = new Set(progressLines.map((line) => line.replace(/\d+/g, '#')));
    expect(progressLines.length, run.stdout).toBeGreaterThanOrEqual(1);
    expect(progressLines.length, run.stdout).toBeLessThanOrEqual(kinds.size + Math.floor(Number(verdict![1]) / 5));
  });
});
