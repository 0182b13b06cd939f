import { PassThrough } from 'node:stream';
import { verifyFailed } from './runs.js';
import { describe, expect, it } from 'vitest';
import { escapeData, GithubActionsReporter } from '../../src/report/ci/github.js';
import { RecordingReporter } from '../fakes.js';

const workload = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'shop' };

function capture() {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
  return { stream, text: () => text };
}

/** The lines inside the summary's folded log, as a reader counts them. */
function shownLogLines(markdown: string): string[] {
  return (markdown.match(/<pre>([\s\S]*?)<\/pre>/)?.[1] ?? '').split('\n');
}

describe('GithubActionsReporter', () => {
  it('turns a failed rollout into one ::error annotation with its evidence, and passes every event on', () => {
    const out = capture();
    const inner = new RecordingReporter();
    const reporter = new GithubActionsReporter(inner, out.stream, undefined);
    reporter.emit({
      kind: 'failed',
      workload,
      elapsedMs: 1200,
      diagnosis: {
        summary: 'new pods cannot pull image "x:1": ImagePullBackOff',
        evidence: ['pod web-1 container web: ImagePullBackOff'],
        nextStep: 'fix the tag',
      },
    });
    reporter.emit({ kind: 'not-watched', workload, detail: 'a CronJob only schedules Jobs' });
    expect(inner.kinds()).toEqual(['failed', 'not-watched']);
    expect(out.text()).toBe(
      '::error title=kguard::deployment/web (namespace shop): new pods cannot pull image "x:1": ImagePullBackOff (after 1.2s)' +
        '%0Apod web-1 container web: ImagePullBackOff%0Anext: fix the tag\n',
    );
  });

  it('points the annotation at the manifest file and line of the failing object', () => {
    const out = capture();
    const locate = (ref: { name: string }) => (ref.name === 'web' ? { file: 'k8s/web, v2.yaml', line: 12 } : undefined);
    const reporter = new GithubActionsReporter(new RecordingReporter(), out.stream, undefined, undefined, locate);
    reporter.emit({
      kind: 'failed',
      workload,
      elapsedMs: 1200,
      diagnosis: { summary: 'new pods crash', evidence: [], nextStep: 'read the logs' },
    });
    expect(out.text()).toMatch(
      /^::error file=k8s\/web%2C v2.yaml,line=12,title=kguard%3A deployment\/web \(namespace shop\)::deployment\/web \(namespace shop\): new pods crash/,
    );
  });

  it('writes a job summary at the end: the verdict first, one row per object, the log folded', () => {
    const written: string[] = [];
    const reporter = new GithubActionsReporter(new RecordingReporter(), capture().stream, '/summary.md', (path, text) =>
      written.push(`${path}\n${text}`),
    );
    const settings = { apiVersion: 'v1', kind: 'ConfigMap', name: 'settings', namespace: 'shop' };
    reporter.emit({
      kind: 'changes',
      objects: [
        { ref: workload, change: 'configured', changedFields: ['spec.template.spec.containers[0].image'] },
        { ref: settings, change: 'unchanged', changedFields: [] },
      ],
    });
    reporter.emit({
      kind: 'failed',
      workload,
      elapsedMs: 1200,
      diagnosis: { summary: 'new pods cannot pull their image "x:1" <b>', evidence: [], nextStep: 'fix the tag' },
    });
    reporter.emit({ kind: 'restoring', objects: [workload] });
    reporter.emit({ kind: 'restored', object: workload, action: 'restored', differences: [] });
    reporter.emit({ kind: 'finished', outcome: 'rolled-back', exitCode: 3, failedWorkloads: 1, restored: true });
    reporter.close();
    expect(written).toHaveLength(1);
    const [path, ...lines] = written[0]!.split('\n');
    expect(path).toBe('/summary.md');
    expect(lines.slice(0, 6)).toEqual([
      '### ✖ kguard: the apply failed and the cluster was restored to its state before the apply (exit 3)',
      '',
      '| object | change | verdict | restore |',
      '|---|---|---|---|',
      '| deployment/web (namespace shop) | changed: spec.template.spec.containers[0].image | ✖ new pods cannot pull their image "x:1" &lt;b&gt; (after 1.2s)<br><code>next: fix the tag</code> | ↩ put back as it was before the apply |',
      '| configmap/settings (namespace shop) | unchanged | unchanged, not watched |  |',
    ]);
    // 5 entries, 7 lines: the changes and the failure each carry a detail line of their own.
    expect(lines).toContain('<details><summary>kguard log (7 lines)</summary>');
    expect(shownLogLines(written[0]!)).toHaveLength(7);
    expect(written[0]).toContain(
      '<pre>• the apply changed 1 of 2 objects\n    deployment/web (namespace shop): changed: spec.template.spec.containers[0].image\n✖ deployment/web',
    );
  });

  it('writes no summary for a run that did not finish (report/format/failure.ts writes that one)', () => {
    const written: string[] = [];
    const reporter = new GithubActionsReporter(
      new RecordingReporter(),
      capture().stream,
      '/summary.md',
      (_path, text) => written.push(text),
    );
    reporter.emit({ kind: 'understood', objects: [workload] });
    reporter.close();
    expect(written).toEqual([]);
  });

  it('warns instead of failing when $GITHUB_STEP_SUMMARY cannot be written', () => {
    const out = capture();
    const reporter = new GithubActionsReporter(new RecordingReporter(), out.stream, '/nope/summary.md', () => {
      throw new Error("ENOENT: no such file or directory, open '/nope/summary.md'");
    });
    reporter.emit({ kind: 'finished', outcome: 'succeeded', exitCode: 0, failedWorkloads: 0, restored: false });
    expect(() => reporter.close()).not.toThrow();
    expect(out.text()).toMatch(
      /^::warning title=kguard::could not write the job summary to \$GITHUB_STEP_SUMMARY \(ENOENT/,
    );
  });

  it('escapes workflow command data as @actions/core does', () => {
    expect(escapeData('50% done\r\nnext')).toBe('50%25 done%0D%0Anext');
  });

  it('lists the checks and the bake under the objects of the job summary, and annotates a failed check', () => {
    const out = capture();
    let summary = '';
    const reporter = new GithubActionsReporter(
      new RecordingReporter(),
      out.stream,
      '/summary.md',
      (_path, text) => (summary += text),
    );
    reporter.emit({
      kind: 'changes',
      objects: [{ ref: workload, change: 'configured', changedFields: ['spec.template.spec.containers[0].image'] }],
    });
    reporter.emit({
      kind: 'healthy',
      workload,
      elapsedMs: 1000,
      progress: { desired: 2, updated: 2, ready: 2, available: 2 },
    });
    const check = { type: 'command' as const, command: './smoke.sh' };
    reporter.emit({ kind: 'verify-started', check, during: 'verify', timeoutMs: 120_000 });
    reporter.emit(
      verifyFailed(check, {
        exitCode: 7,
        summary: 'exited with code 7',
        elapsedMs: 300,
        lines: ['HTTP 503'],
        nextStep: 'fix the app',
      }),
    );
    reporter.emit({ kind: 'finished', outcome: 'rolled-back', exitCode: 3, failedWorkloads: 0, restored: true });
    reporter.close();
    expect(out.text()).toContain(
      '::error title=kguard::verification failed: `./smoke.sh` exited with code 7 (after 0.3s)%0Alast lines of its output:%0A  | HTTP 503%0Anext: fix the app\n',
    );
    expect(summary).toContain(
      '**Checks**\n\n- ✖ verification failed: `./smoke.sh` exited with code 7 (after 0.3s)<br><code>next: fix the app</code>\n',
    );
    expect(summary).toContain(
      '| deployment/web (namespace shop) | changed: spec.template.spec.containers[0].image | ✔ rolled out',
    );
  });
});
