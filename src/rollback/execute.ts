// Carries out a rollback plan: `kubectl rollout undo --to-revision` for each step, then watches
// the undone Deployments until they are healthy again.
import type { Clock } from '../clock.js';
import type { Kubectl } from '../kubectl/client.js';
import { describeWorkload, workloadKey } from '../manifests/parse.js';
import type { Reporter } from '../report/events.js';
import type { RollbackResult } from '../run/result.js';
import { trackRollouts, type TrackTarget } from '../track/tracker.js';
import { expectationOf, someoneElsesChange, type Expectation } from '../track/verdict.js';
import { manualCommands, type RollbackStep } from './plan.js';

export interface RollbackOptions {
  timeoutMs: number;
  pollIntervalMs: number;
}

export interface RollbackDeps {
  kubectl: Pick<Kubectl, 'getDeployment' | 'rolloutUndo' | 'workloadState' | 'events' | 'commandLine'>;
  clock: Clock;
  reporter: Reporter;
}

/** Results by workloadKey. `applied` holds what each Deployment looked like right after the apply. */
export async function executeRollback(
  steps: readonly RollbackStep[],
  applied: ReadonlyMap<string, Expectation>,
  options: RollbackOptions,
  deps: RollbackDeps,
): Promise<Map<string, RollbackResult>> {
  const results = new Map<string, RollbackResult>();
  const commandLine = (args: string[]) => deps.kubectl.commandLine(args);
  const undone: Array<{ step: RollbackStep & { action: 'undo' }; target: TrackTarget; startedAt: number }> = [];

  for (const step of steps) {
    const key = workloadKey(step.workload);
    const { workload } = step;
    if (step.action === 'skip') {
      const commands = manualCommands(step, commandLine);
      results.set(key, { status: 'skipped', reason: step.reason, commands });
      deps.reporter.emit({ kind: 'rollback-skipped', workload, reason: step.reason, commands });
      continue;
    }
    const commands = manualCommands(step, commandLine);
    const expected = applied.get(key);
    // Look once more right before undoing: someone may have changed it since the last poll.
    const current = await deps.kubectl.getDeployment(workload.namespace, workload.name).catch(() => undefined);
    const change = expected && current ? someoneElsesChange(current, expected) : undefined;
    if (change) {
      const skipCommands = manualCommands({ ...step, action: 'skip', reason: change.state }, commandLine);
      results.set(key, { status: 'skipped', reason: change.state, commands: skipCommands });
      deps.reporter.emit({ kind: 'rollback-skipped', workload, reason: change.state, commands: skipCommands });
      continue;
    }
    deps.reporter.emit({ kind: 'rollback-started', workload, toRevision: step.toRevision });
    const startedAt = deps.clock.now();
    const undo = await deps.kubectl.rolloutUndo(workload.namespace, workload.name, step.toRevision);
    const afterUndo = undo.ok ? await deps.kubectl.getDeployment(workload.namespace, workload.name).catch(() => undefined) : undefined;
    if (!undo.ok || !afterUndo) {
      const reason = undo.ok
        ? `${describeWorkload(workload)} could not be read after the undo`
        : `kubectl rollout undo failed: ${undo.output}`;
      results.set(key, { status: 'failed', toRevision: step.toRevision, reason, commands });
      deps.reporter.emit({ kind: 'rollback-failed', workload, toRevision: step.toRevision, reason, commands });
      continue;
    }
    undone.push({ step, target: { workload, expected: expectationOf(afterUndo) }, startedAt });
  }

  if (undone.length === 0) return results;
  const tracked = await trackRollouts(
    undone.map(({ target }) => target),
    { ...options, phase: 'rollback', stopWhenAnyFails: false, settleMs: 0 },
    deps,
  );
  for (const { step, target, startedAt } of undone) {
    const key = workloadKey(target.workload);
    const outcome = tracked.get(key);
    const durationMs = deps.clock.now() - startedAt;
    if (outcome?.verdict.state === 'healthy') {
      results.set(key, { status: 'rolled-back', toRevision: step.toRevision, durationMs });
      deps.reporter.emit({
        kind: 'rolled-back',
        workload: target.workload,
        toRevision: step.toRevision,
        progress: outcome.verdict.progress,
        elapsedMs: durationMs,
      });
      continue;
    }
    const why = outcome?.diagnosis?.summary ?? (outcome ? `rollback ended ${outcome.verdict.state}` : 'rollback was not tracked');
    const reason = `the undo to revision ${step.toRevision} was sent, but the old pods did not become healthy: ${why}`;
    const commands = [
      commandLine(['rollout', 'status', `deployment/${target.workload.name}`, '-n', target.workload.namespace]),
      commandLine(['describe', `deployment/${target.workload.name}`, '-n', target.workload.namespace]),
    ];
    results.set(key, { status: 'failed', toRevision: step.toRevision, reason, commands });
    deps.reporter.emit({ kind: 'rollback-failed', workload: target.workload, toRevision: step.toRevision, reason, commands });
  }
  return results;
}
