// How to add a kind, from scratch, as kstatus' example_test.go shows its own use: a kind is a
// set of rules (RolloutRules) that the shared engine (src/kinds/engine.ts judge) applies to each
// look; the tracker, the classifier and the reporters never learn its name. To ship one, put
// the rules in src/kinds/ and give it a row in src/kinds/table.ts (or, for a custom resource
// whose health is conditions and fields only, a health rule in src/kinds/health/health-table.ts).
//
// The example kind is Velero's Backup (velero.io/v1): its controller writes status.phase
// (pkg/apis/velero/v1/backup_types.go BackupPhase: New, FailedValidation, InProgress,
// WaitingForPluginOperations, WaitingForPluginOperationsPartiallyFailed, Finalizing,
// FinalizingPartiallyFailed, Completed, PartiallyFailed, Failed, Deleting) and no
// observedGeneration, so "observed" is "a phase was written".
import { describe, expect, it } from 'vitest';
import { judge, type RolloutRules } from '../../src/kinds/engine.js';
import type { ReasonRule } from '../../src/model/findings.js';
import type { Moment } from '../../src/model/verdict.js';
import type { KubeObject } from '../../src/objects/model.js';
import { snapshotFrom } from '../fakes.js';

interface Backup extends KubeObject {
  status?: { phase?: string; failureReason?: string; errors?: number };
}

const BACKUP_FAILED: ReasonRule = {
  category: 'stalled',
  family: 'other',
  policy: { when: 'now' },
  cannot: 'complete its backup',
  nextStep: 'read why: velero backup describe NAME --details, and velero backup logs NAME',
};

const FAILED_PHASES = new Set(['FailedValidation', 'PartiallyFailed', 'Failed']);

const backupRules: RolloutRules<Backup> = {
  controller: 'Velero backup controller',
  observed: (backup) => backup.status?.phase !== undefined,
  newPods: () => [],
  wait(backup) {
    return backup.status?.phase === 'Completed' ? undefined : `backup is ${backup.status?.phase}`;
  },
  failure(backup) {
    const phase = backup.status?.phase;
    if (!phase || !FAILED_PHASES.has(phase)) return undefined;
    return { source: 'condition', reason: phase, message: backup.status?.failureReason ?? '', rule: BACKUP_FAILED };
  },
  progress(backup) {
    return { desired: 0, updated: 0, ready: 0, available: 0, summary: backup.status?.phase ?? 'no phase yet' };
  },
};

const applied: Backup = {
  apiVersion: 'velero.io/v1',
  kind: 'Backup',
  metadata: { name: 'nightly', namespace: 'velero', uid: 'b-1', resourceVersion: '10', generation: 1 },
  spec: { includedNamespaces: ['shop'], ttl: '720h0m0s' },
};

function look(status: Backup['status'], moment: Partial<Moment> = {}) {
  const object: Backup = { ...structuredClone(applied), status };
  return judge(
    backupRules as RolloutRules<unknown>,
    { object, snapshot: snapshotFrom({ others: [object] }) },
    { applied },
    new Map(),
    { now: 1_000, startedAt: 0, timeoutMs: 60_000, ...moment },
  );
}

describe('a kind added from scratch (Velero Backup)', () => {
  it('waits for its controller to write a phase', () => {
    expect(look(undefined)).toMatchObject({
      state: 'progressing',
      waitingFor: 'waiting for the Velero backup controller to observe generation 1',
    });
  });

  it('is progressing while the backup runs, healthy once it is Completed', () => {
    expect(look({ phase: 'InProgress' })).toMatchObject({ state: 'progressing', waitingFor: 'backup is InProgress' });
    expect(look({ phase: 'Completed' })).toMatchObject({ state: 'healthy', progress: { summary: 'Completed' } });
  });

  it('fails at once on a failed phase, with its reason as the cause', () => {
    const verdict = look({ phase: 'PartiallyFailed', failureReason: 'volume snapshot timed out', errors: 2 });
    expect(verdict).toMatchObject({
      state: 'failed',
      cause: { source: 'condition', reason: 'PartiallyFailed', message: 'volume snapshot timed out' },
    });
  });

  it('times out at its deadline when the backup never ends', () => {
    expect(look({ phase: 'InProgress' }, { now: 60_000 })).toMatchObject({
      state: 'timed-out',
      waitingFor: 'backup is InProgress',
    });
  });

  it('loses to someone else: another writer changed its spec', () => {
    const changed: Backup = { ...structuredClone(applied), spec: { includedNamespaces: ['other'] } };
    const verdict = judge(
      backupRules as RolloutRules<unknown>,
      { object: changed, snapshot: snapshotFrom({ others: [changed] }) },
      { applied },
      new Map(),
      { now: 1_000, startedAt: 0, timeoutMs: 60_000 },
    );
    expect(verdict.state).toBe('conflict');
  });
});
