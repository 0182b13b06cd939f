// The job summary under GitHub's 1 MiB per step: cut, and saying what it left out.
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/model/events.js';
import { failureSummary, GithubActionsReporter } from '../../src/report/ci/github.js';
import {
  composeSummary,
  STEP_SUMMARY_LIMIT_BYTES,
  SUMMARY_MARGIN_BYTES,
  summaryBudget,
} from '../../src/report/ci/github-summary.js';
import { RecordingReporter } from '../fakes.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kguard-summary-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const KIB = 1024;
const configMap = (index: number) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  namespace: 'shop',
  name: `settings-${String(index).padStart(4, '0')}`,
});
const web = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'shop', name: 'web' };

/** A 1,000-object apply: 999 ConfigMaps and the Deployment web (the 874th object), whose rollout failed; all restored. */
function thousandObjectRun(): RunEvent[] {
  const refs = Array.from({ length: 1000 }, (_, index) => (index === 873 ? web : configMap(index)));
  return [
    { kind: 'applied', objects: [], dryRun: false },
    {
      kind: 'changes',
      objects: refs.map((ref) => ({ ref, change: 'configured' as const, changedFields: ['data.mode'] })),
    },
    {
      kind: 'failed',
      workload: web,
      elapsedMs: 4200,
      diagnosis: {
        summary: 'new pods cannot stay running (crash loop): CrashLoopBackOff',
        evidence: [],
        nextStep: 'fix it',
      },
    },
    { kind: 'restoring', objects: refs },
    ...refs.map((object): RunEvent => ({ kind: 'restored', object, action: 'restored', differences: [] })),
    { kind: 'finished', outcome: 'rolled-back', exitCode: 3, failedWorkloads: 1, restored: true },
  ];
}

function summaryOf(markdown: string) {
  const rows = markdown.split('\n').filter((line) => line.startsWith('| ') && !line.startsWith('| object |'));
  const more = markdown.match(/^… (\d+) more objects; see the --output json report$/m);
  const header = markdown.match(/<summary>kguard log \((\d+)(?: of (\d+))? lines\)<\/summary>/);
  const pre = (markdown.match(/<pre>([\s\S]*?)<\/pre>/)?.[1] ?? '').split('\n');
  const logMarker = pre.findIndex((line) => /^… \d+ more lines; see the job's log$/.test(line));
  return {
    rows,
    moreObjects: more ? Number(more[1]) : 0,
    shownCount: Number(header?.[1]),
    totalCount: header?.[2] ? Number(header[2]) : Number(header?.[1]),
    shownLines: logMarker === -1 ? pre : pre.filter((_, index) => index !== logMarker),
    logLeftOut: logMarker === -1 ? 0 : Number(pre[logMarker]!.match(/\d+/)![0]),
  };
}

describe('the job summary of a 1,000-object run', () => {
  it("stays under 1 MiB with what earlier writers left in the step's file: cut, the failed object kept, the cut said", async () => {
    const path = join(dir, 'step_summary');
    // Another tool of the same step wrote 900 KiB first: kguard has 1024 − 900 − 64 = 60 KiB.
    await writeFile(path, 'x'.repeat(900 * KIB));
    const out = new PassThrough();
    const reporter = new GithubActionsReporter(new RecordingReporter(), out, path);
    for (const event of thousandObjectRun()) reporter.emit(event);
    reporter.close();
    const size = (await stat(path)).size;
    expect(size).toBeLessThanOrEqual(STEP_SUMMARY_LIMIT_BYTES - SUMMARY_MARGIN_BYTES);
    const markdown = (await readFile(path, 'utf8')).slice(900 * KIB);
    expect(markdown.split('\n')[0]).toBe(
      '### ✖ kguard: the apply failed and the cluster was restored to its state before the apply (exit 3)',
    );
    const summary = summaryOf(markdown);
    expect(summary.rows.length).toBeGreaterThan(0);
    expect(summary.moreObjects).toBe(1000 - summary.rows.length);
    // The failed Deployment needs a person: its row is kept whatever the cut.
    expect(summary.rows.some((row) => row.startsWith('| deployment/web (namespace shop) |'))).toBe(true);
    // The log's header counts exactly the lines shown, and of how many.
    expect(summary.shownCount).toBe(summary.shownLines.length);
    expect(summary.totalCount).toBe(summary.shownCount + summary.logLeftOut);
    expect(summary.logLeftOut).toBeGreaterThan(0);
    // The end of the run is kept: the verdict line closes the log.
    expect(summary.shownLines.at(-1)).toBe(
      '✖ kguard: the apply failed and the cluster was restored to its state before the apply (exit 3)',
    );
  });

  it('is whole, every object a row, when it fits', async () => {
    const path = join(dir, 'step_summary');
    const reporter = new GithubActionsReporter(new RecordingReporter(), new PassThrough(), path);
    for (const event of thousandObjectRun()) reporter.emit(event);
    reporter.close();
    const summary = summaryOf(await readFile(path, 'utf8'));
    expect(summary.rows).toHaveLength(1000);
    expect(summary.moreObjects).toBe(0);
    expect(summary.logLeftOut).toBe(0);
    expect(summary.shownCount).toBe(summary.shownLines.length);
  });

  it('writes nothing and warns when the file has no room left even for the verdict', async () => {
    const path = join(dir, 'step_summary');
    await writeFile(path, 'x'.repeat(STEP_SUMMARY_LIMIT_BYTES - SUMMARY_MARGIN_BYTES));
    const out = new PassThrough();
    let warnings = '';
    out.on('data', (chunk: Buffer) => (warnings += chunk.toString()));
    const reporter = new GithubActionsReporter(new RecordingReporter(), out, path);
    for (const event of thousandObjectRun()) reporter.emit(event);
    reporter.close();
    expect((await stat(path)).size).toBe(STEP_SUMMARY_LIMIT_BYTES - SUMMARY_MARGIN_BYTES);
    expect(warnings).toContain(
      '::warning title=kguard::could not write the job summary to $GITHUB_STEP_SUMMARY (it already holds 960 KiB; GitHub drops a step summary over 1 MiB)',
    );
  });
});

describe('composeSummary', () => {
  const parts = {
    heading: '### ✔ done',
    rows: Array.from({ length: 50 }, (_, index) => ({
      markdown: `| row ${index} | a | b | c |`,
      urgent: index === 42,
    })),
    checks: [],
    log: Array.from({ length: 200 }, (_, index) => `• line ${index}`),
  };

  it('keeps every budget it is given, urgent rows first, in table order', () => {
    for (const budget of [600, 1500, 4000]) {
      const markdown = composeSummary(parts, budget)!;
      expect(Buffer.byteLength(markdown)).toBeLessThanOrEqual(budget);
      const summary = summaryOf(markdown);
      expect(summary.rows).toContain('| row 42 | a | b | c |');
      expect(summary.moreObjects).toBe(50 - summary.rows.length);
      const numbers = summary.rows.map((row) => Number(row.match(/\d+/)![0]));
      expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
      expect(summary.shownCount).toBe(summary.shownLines.length);
      expect(summary.totalCount).toBe(200);
    }
  });

  it('gives up only when not even the verdict fits', () => {
    expect(composeSummary(parts, 20)).toBeUndefined();
  });

  it("reads the room left from the file's size", () => {
    expect(summaryBudget('/step_summary', () => 300 * KIB)).toBe((1024 - 300 - 64) * KIB);
    expect(summaryBudget(join(dir, 'not-written-yet'))).toBe((1024 - 64) * KIB);
  });
});

describe('failureSummary', () => {
  it('counts the lines it shows when a message spans several', () => {
    const markdown = failureSummary('kubectl apply failed', 1, ['read 2 objects', 'error: one\nerror: two'], 10_000)!;
    expect(markdown).toContain('<details><summary>kguard log (3 lines)</summary>');
    expect(summaryOf(markdown).shownLines).toEqual(['read 2 objects', 'error: one', 'error: two']);
  });
});
