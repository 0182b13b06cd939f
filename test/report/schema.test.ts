import { describe, expect, it } from 'vitest';
import type { Finding } from '../../src/classify/pod.js';
import { WAITING_REASONS } from '../../src/classify/table.js';
import { failureReport } from '../../src/report/failure.js';
import { buildReport } from '../../src/report/json.js';
import type { RunResult } from '../../src/run/result.js';
import { reportSchemaErrors } from './schema.js';

const pullFailure: Finding = {
  pod: 'web-7d9c6b8f4d-x2kqp',
  namespace: 'shop',
  container: 'web',
  initContainer: false,
  image: 'xxxxxnginx:1.17',
  reason: 'ImagePullBackOff',
  message: 'Back-off pulling image "xxxxxnginx:1.17"',
  restartCount: 0,
  rule: WAITING_REASONS.ImagePullBackOff!,
  policy: WAITING_REASONS.ImagePullBackOff!.policy,
};

const progress = { desired: 3, updated: 1, ready: 0, available: 0, revision: 7 } as never;

/** A run that touches every part of the report: a failed Deployment restored, a created ConfigMap kept, a cluster-scoped Namespace. */
const restoredRun: RunResult = {
  mode: 'apply',
  applied: [{ resource: 'deployment.apps', name: 'web', action: 'configured' }],
  rollbackMode: 'all',
  applyMs: 412.4,
  totalMs: 7160.2,
  kubectlProcesses: 14,
  objects: [
    {
      ref: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'shop', name: 'web' },
      changeKind: 'configured',
      changedFields: ['spec.template.spec.containers[0].image'],
      tracked: true,
      verdict: { state: 'failed', findings: [pullFailure], cause: { source: 'pod', finding: pullFailure }, progress },
      diagnosis: { summary: 'new pods cannot pull their image "xxxxxnginx:1.17": ImagePullBackOff', evidence: ['pod web-7d9c6b8f4d-x2kqp ...'], nextStep: 'check the image' },
      verdictAfterMs: 4213.7,
      restore: { status: 'restored', differences: [] },
      afterRestore: { state: 'healthy', elapsedMs: 2087.1 },
    },
    {
      ref: { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'shop', name: 'settings' },
      changeKind: 'created',
      changedFields: [],
      restore: { status: 'kept', reason: 'keep-created', commands: ['kubectl delete configmap/settings -n shop'], copyFile: undefined },
    },
    { ref: { apiVersion: 'v1', kind: 'Namespace', namespace: '', name: 'shop' }, changeKind: 'unchanged', changedFields: [] },
  ],
};

describe('schema/report.schema.json', () => {
  it('accepts the report of a restored run, with restore results, pods and a cluster-scoped object', () => {
    const report = buildReport(restoredRun, ['read 3 objects']);
    expect(report.outcome).toBe('needs-attention');
    expect(reportSchemaErrors(report)).toEqual([]);
  });

  it('accepts a preview and a failure report', () => {
    expect(reportSchemaErrors(buildReport({ ...restoredRun, mode: 'preview' }, []))).toEqual([]);
    expect(reportSchemaErrors(failureReport({ outcome: 'error', exitCode: 1, message: 'no manifests given' }))).toEqual([]);
    expect(reportSchemaErrors(failureReport({ outcome: 'interrupted', exitCode: 130, message: 'SIGINT again', messages: ['x'] }))).toEqual([]);
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
    expect(reportSchemaErrors({ ...report, objects: [report.objects[0], kept, report.objects[2]] }).join('\n')).toMatch(/restore\/reason/);
  });
});
