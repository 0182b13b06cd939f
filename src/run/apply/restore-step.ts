// The restore: the plan from the pre-apply copies (restore/plan.ts), its writes (restore/restore.ts),
// then every restored workload tracked until it is healthy again.
import { kubectlName, namespaceArgs, objectKey } from '../../objects/model.js';
import { planRestore } from '../../restore/plan.js';
import type { VerdictState } from '../../model/verdict.js';
import { executeRestore } from '../../restore/restore.js';
import { trackWorkloads } from '../../track/workloads.js';
import { verdictText } from '../../kinds/engine.js';
import { failingBeforeApply } from '../../kinds/before.js';
import type { ApplyOptions } from '../../model/options.js';
import type { PendingObject } from './changes.js';
import type { Deps } from './deps.js';
import { trackOptionsFor } from './track-options.js';

export async function restore(objects: PendingObject[], options: ApplyOptions, deps: Deps, failedAsUnit = false) {
  const steps = planRestore(
    objects.map((object) => ({
      ref: object.ref,
      change: object.change,
      verdict: object.verdict?.state as VerdictState | undefined,
    })),
    options.rollback,
    { keepCreated: options.keepCreated, cancelled: deps.signal?.aborted, failedAsUnit },
  );
  if (steps.length === 0) return;
  const stages = new Map(
    objects.flatMap((object) => (object.stage === undefined ? [] : [[objectKey(object.ref), object.stage] as const])),
  );
  const results = await executeRestore(steps, { deadlineMs: options.rollbackTimeoutMs, stages }, deps);
  for (const object of objects) object.restore = results.get(objectKey(object.ref));
  // Cancelled: the writes are what counts before the CI runner's SIGKILL; health is not waited for.
  if (deps.signal?.aborted) return;
  // Restored workloads are tracked until healthy again: the restore is done when they are.
  const restored = objects.filter(
    (object) =>
      object.restore?.status === 'restored' ||
      object.restore?.status === 'recreated' ||
      object.restore?.status === 'replaced',
  );
  const outcomes = await trackWorkloads(
    restored.flatMap((object) =>
      object.restore && 'restored' in object.restore && object.restore.restored
        ? [{ ref: object.ref, applied: object.restore.restored, before: undefined }]
        : [],
    ),
    trackOptionsFor(options, 'rollback'),
    deps,
  );
  for (const object of restored) {
    const outcome = outcomes.get(objectKey(object.ref));
    if (!outcome?.tracked) continue;
    // A signal while the restored pods start: the writes are done, and a cancelled run does not
    // wait for health (as above). Not healthy yet is not a failed restore.
    if (deps.signal?.aborted && outcome.verdict.state !== 'healthy') continue;
    const why = outcome.diagnosis?.summary ?? verdictText(outcome.verdict) ?? `it ended ${outcome.verdict.state}`;
    // Judged against the state before the apply: failing as it failed then is restored, not worse.
    const failingBefore =
      outcome.verdict.state === 'healthy'
        ? undefined
        : failingBeforeApply(
            object.ref,
            'before' in object.change ? object.change.before : undefined,
            trackOptionsFor(options, 'rollback').healthRules,
          );
    object.afterRestore = {
      state: outcome.verdict.state,
      summary: outcome.diagnosis?.summary,
      elapsedMs: outcome.elapsedMs,
      ...(failingBefore === undefined ? {} : { failingBefore }),
    };
    if (failingBefore !== undefined) {
      deps.reporter.emit({
        kind: 'restored-failing-before',
        workload: object.ref,
        before: failingBefore,
        now: why,
        command: deps.kubectl.commandLine(['describe', kubectlName(object.ref), ...namespaceArgs(object.ref)]),
      });
    } else if (outcome.verdict.state === 'healthy' && outcome.verdict.progress) {
      deps.reporter.emit({
        kind: 'rolled-back',
        workload: object.ref,
        progress: outcome.verdict.progress,
        elapsedMs: outcome.elapsedMs,
      });
    } else {
      deps.reporter.emit({
        kind: 'rollback-unhealthy',
        workload: object.ref,
        reason: why,
        commands: [
          deps.kubectl.commandLine(['rollout', 'status', kubectlName(object.ref), ...namespaceArgs(object.ref)]),
          deps.kubectl.commandLine(['describe', kubectlName(object.ref), ...namespaceArgs(object.ref)]),
        ],
      });
    }
  }
}

/**
 * --dry-run: what the apply would create, change or leave alone. Server strategy: from the
 * server's answer, field by field. Client strategy: kubectl's own verdict per object (its JSON
 * shows the live object, not the patched one), without fields.
 */
