import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { failureReport } from '../../src/report/format/failure.js';
import { buildReport } from '../../src/report/json.js';
import { bakedRun, restoredRun } from './runs.js';
import { reportSchemaErrors } from './schema.js';

describe('schema/report.schema.json', () => {
  it('accepts the report of a restored run, with restore results, pods and a cluster-scoped object', () => {
    const report = buildReport(restoredRun, ['read 3 objects']);
    expect(report.outcome).toBe('needs-attention');
    expect(reportSchemaErrors(report)).toEqual([]);
  });

  it('accepts the checks and the bake of a run restored by its bake', () => {
    const report = buildReport(bakedRun, []);
    expect(report).toMatchObject({ outcome: 'rolled-back', exitCode: 3 });
    expect(report.verify.map((check) => [check.type, check.during, check.passed])).toEqual([
      ['command', 'verify', true],
      ['job', 'verify', true],
      ['command', 'bake', true],
    ]);
    expect(report.verify[1]).toMatchObject({
      file: 'smoke.yaml',
      job: { namespace: 'shop', name: 'smoke-x2k4q' },
      command: null,
      exitCode: null,
      cleanup: { action: 'deleted', detail: null, commands: [] },
    });
    expect(report.bake).toMatchObject({
      passed: false,
      stoppedBy: 'workload',
      elapsedMs: 5200,
      workload: { kind: 'Deployment', namespace: 'shop', name: 'web' },
      checksRun: 1,
    });
    expect(reportSchemaErrors(report)).toEqual([]);
    expect(reportSchemaErrors({ ...report, verify: [{ ...report.verify[0], during: 'later' }] })).not.toEqual([]);
    expect(reportSchemaErrors({ ...report, bake: { ...report.bake, stoppedBy: 'boredom' } })).not.toEqual([]);
  });

  it('accepts a preview and a failure report', () => {
    expect(reportSchemaErrors(buildReport({ ...restoredRun, mode: 'preview', outcome: 'previewed' }, []))).toEqual([]);
    expect(reportSchemaErrors(failureReport({ outcome: 'error', exitCode: 1, message: 'no manifests given' }))).toEqual(
      [],
    );
    expect(
      reportSchemaErrors(
        failureReport({ outcome: 'interrupted', exitCode: 130, message: 'SIGINT again', messages: ['x'] }),
      ),
    ).toEqual([]);
  });

  it('refuses an exit code that does not follow from the outcome', () => {
    const report = { ...buildReport(restoredRun, []), exitCode: 0 };
    expect(reportSchemaErrors(report).join('\n')).toMatch(/exitCode/);
  });

  it('refuses unknown fields, missing fields and unknown keep reasons', () => {
    const report = buildReport(restoredRun, []);
    expect(reportSchemaErrors({ ...report, extra: 1 })).not.toEqual([]);
    const { messages: _messages, ...withoutMessages } = report;
    expect(reportSchemaErrors(withoutMessages)).not.toEqual([]);
    const kept = { ...report.objects[1]!, restore: { ...report.objects[1]!.restore!, reason: 'felt like it' } };
    expect(reportSchemaErrors({ ...report, objects: [report.objects[0], kept, report.objects[2]] }).join('\n')).toMatch(
      /restore\/reason/,
    );
  });
});

describe('the schema follows the code', () => {
  it('lists every Category of src/model/findings.ts, and nothing else', () => {
    const table = readFileSync(new URL('../../src/model/findings.ts', import.meta.url), 'utf8');
    const union = /export type Category =([^;]*);/.exec(table)?.[1] ?? '';
    const categories = [...union.matchAll(/\| '([a-z-]+)'/g)].map((match) => match[1]);
    const schema = JSON.parse(readFileSync(new URL('../../schema/report.schema.json', import.meta.url), 'utf8')) as {
      $defs: { ObjectReport: { properties: { category: { enum: Array<string | null> } } } };
    };
    expect(categories.length).toBeGreaterThan(5);
    expect(schema.$defs.ObjectReport.properties.category.enum.filter((value) => value !== null).sort()).toEqual(
      categories.sort(),
    );
  });
});
