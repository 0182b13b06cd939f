import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { escapeData, GithubActionsReporter } from '../../src/report/github.js';
import { RecordingReporter } from '../fakes.js';

const workload = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'shop' };

function capture() {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
  return { stream, text: () => text };
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
      diagnosis: { summary: 'new pods cannot pull image "x:1": ImagePullBackOff', evidence: ['pod web-1 container web: ImagePullBackOff'], nextStep: 'fix the tag' },
    });
    reporter.emit({ kind: 'unchanged', workload, detail: 'generation 3 unchanged' });
    expect(inner.kinds()).toEqual(['failed', 'unchanged']);
    expect(out.text()).toBe(
      '::error title=kguard::deployment/web (namespace shop): new pods cannot pull image "x:1": ImagePullBackOff (after 1.2s)' +
        '%0Apod web-1 container web: ImagePullBackOff%0Anext: fix the tag\n',
    );
  });

  it('writes a Markdown job summary of the steps at the end', () => {
    const written: string[] = [];
    const reporter = new GithubActionsReporter(new RecordingReporter(), capture().stream, '/summary.md', (path, text) => written.push(`${path}\n${text}`));
    reporter.emit({ kind: 'restoring', objects: [workload] });
    reporter.emit({ kind: 'finished', outcome: 'rolled-back', exitCode: 3, failedWorkloads: 1, restored: true });
    reporter.close();
    expect(written).toHaveLength(1);
    expect(written[0]).toContain('/summary.md\n### kguard apply');
    expect(written[0]).toContain('| ↩ | restoring 1 object to their copies from before the apply: deployment/web (namespace shop) |');
    expect(written[0]).toContain('| ✖ | kguard: the apply failed and the cluster was restored to its state before the apply (exit 3) |');
  });

  it('warns instead of failing when $GITHUB_STEP_SUMMARY cannot be written', () => {
    const out = capture();
    const reporter = new GithubActionsReporter(new RecordingReporter(), out.stream, '/nope/summary.md', () => {
      throw new Error("ENOENT: no such file or directory, open '/nope/summary.md'");
    });
    reporter.emit({ kind: 'finished', outcome: 'succeeded', exitCode: 0, failedWorkloads: 0, restored: false });
    expect(() => reporter.close()).not.toThrow();
    expect(out.text()).toMatch(/^::warning title=kguard::could not write the job summary to \$GITHUB_STEP_SUMMARY \(ENOENT/);
  });

  it('escapes workflow command data as @actions/core does', () => {
    expect(escapeData('50% done\r\nnext')).toBe('50%25 done%0D%0Anext');
  });
});
