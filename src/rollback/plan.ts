// Which changed Deployments to undo, to which revision, and what to tell a person about the rest.
import type { WorkloadRef } from '../manifests/parse.js';
import type { Before } from '../track/change.js';
import type { Verdict } from '../track/verdict.js';

export type RollbackMode = 'all' | 'failed' | 'none';

export interface RolloutOutcome {
  workload: WorkloadRef;
  before: Before;
  verdict: Verdict;
}

export type SkipReason = 'no-rollback' | 'created-by-apply' | 'no-recorded-revision' | 'conflict' | 'gone';

export type RollbackStep =
  | { workload: WorkloadRef; action: 'undo'; toRevision: number }
  | { workload: WorkloadRef; action: 'skip'; reason: SkipReason; toRevision?: number };

export function needsRollback(verdict: Verdict): boolean {
  return verdict.state === 'failed' || verdict.state === 'timed-out';
}

/**
 * The apply is one unit: when any changed Deployment failed or timed out, mode "all" undoes every
 * changed one (healthy ones too), "failed" only the failing ones, "none" nothing. A Deployment that
 * someone else changed, or that did not exist before, is never undone: it is reported instead.
 */
export function planRollback(outcomes: readonly RolloutOutcome[], mode: RollbackMode): RollbackStep[] {
  const anyFailed = outcomes.some((outcome) => needsRollback(outcome.verdict));
  if (!anyFailed) return [];
  const steps: RollbackStep[] = [];
  for (const { workload, before, verdict } of outcomes) {
    if (verdict.state === 'conflict' || verdict.state === 'gone') {
      steps.push({ workload, action: 'skip', reason: verdict.state, toRevision: before.revision });
      continue;
    }
    const selected = mode === 'all' || (mode === 'failed' && needsRollback(verdict));
    if (mode === 'none' && needsRollback(verdict)) {
      steps.push({ workload, action: 'skip', reason: 'no-rollback', toRevision: before.revision });
    }
    if (!selected) continue;
    if (!before.exists) steps.push({ workload, action: 'skip', reason: 'created-by-apply' });
    else if (before.revision === undefined) steps.push({ workload, action: 'skip', reason: 'no-recorded-revision' });
    else steps.push({ workload, action: 'undo', toRevision: before.revision });
  }
  return steps;
}

/** The commands a person runs to finish what kguard did not do. */
export function manualCommands(step: RollbackStep, kubectl: (args: string[]) => string): string[] {
  const { name, namespace } = step.workload;
  const undo = (revision: number) =>
    kubectl(['rollout', 'undo', `deployment/${name}`, '-n', namespace, `--to-revision=${revision}`]);
  if (step.action === 'undo') return [undo(step.toRevision)];
  switch (step.reason) {
    case 'created-by-apply':
      return [kubectl(['delete', `deployment/${name}`, '-n', namespace])];
    case 'no-recorded-revision':
      return [kubectl(['rollout', 'history', `deployment/${name}`, '-n', namespace])];
    case 'conflict':
    case 'gone':
    case 'no-rollback':
      return [
        kubectl(['rollout', 'history', `deployment/${name}`, '-n', namespace]),
        ...(step.toRevision !== undefined ? [undo(step.toRevision)] : []),
      ];
  }
}
