// Every object the apply changed gets an outcome, by one mechanism: its kind's adapter
// (adapters.ts) says whether there is anything to watch; what there is, the tracker watches to a
// verdict; the rest is "applied" (with the reason when there is one: an OnDelete StatefulSet, a
// CronJob, kguard.dev/track: "false"). Objects with no status to judge (ConfigMap, Service,
// RBAC) are simply "applied".
import type { Diagnosis } from '../classify/diagnosis.js';
import { objectKey, type KubeObject, type ObjectRef } from '../objects/model.js';
import type { Deployment } from '../kube.js';
import type { ObjectVerdict } from '../run/result.js';
import { adapterFor } from './adapters.js';
import { overridesOf, TRACK_ANNOTATION } from './overrides.js';
import { trackRollouts, type TrackDeps, type TrackOptions, type TrackTarget } from './tracker.js';
import { expectationOf } from './verdict.js';
import { revisionOf } from '../kube.js';

export interface WorkloadTarget {
  ref: ObjectRef;
  /** The object as the apply (or the restore) left it. */
  applied: KubeObject;
  /** Its pre-apply copy, if it existed. */
  before: KubeObject | undefined;
}

export interface TrackedOutcome {
  tracked: boolean;
  verdict: ObjectVerdict;
  diagnosis?: Diagnosis;
  elapsedMs: number;
}

export async function trackWorkloads(
  targets: readonly WorkloadTarget[],
  options: TrackOptions,
  deps: TrackDeps,
): Promise<Map<string, TrackedOutcome>> {
  const outcomes = new Map<string, TrackedOutcome>();
  const watched: Array<TrackTarget & { source: WorkloadTarget; problems: string[] }> = [];
  for (const target of targets) {
    const adapter = adapterFor(target.ref);
    const overrides = overridesOf(target.applied);
    const planned = overrides.track
      ? adapter.plan(target.applied, overrides)
      : { state: 'applied' as const, detail: `${TRACK_ANNOTATION}: "false": not watched` };
    if (planned) {
      outcomes.set(objectKey(target.ref), { tracked: false, verdict: planned, elapsedMs: 0 });
      if (options.phase === 'rollout' && planned.detail) deps.reporter.emit({ kind: 'not-watched', workload: target.ref, detail: planned.detail });
      continue;
    }
    watched.push({ workload: target.ref, expected: expectationOf(target.applied as unknown as Deployment), adapter, overrides, source: target, problems: overrides.problems });
  }
  if (watched.length === 0) return outcomes;
  if (options.phase === 'rollout') {
    for (const { source, problems } of watched) {
      const isDeployment = source.ref.kind === 'Deployment' && source.ref.apiVersion === 'apps/v1';
      deps.reporter.emit({
        kind: 'tracking',
        workload: source.ref,
        fromRevision: isDeployment && source.before ? revisionOf(source.before as unknown as Deployment) : undefined,
        detail: [source.before ? 'changed by this apply' : 'created by this apply', ...problems].join('; '),
      });
    }
  }
  const tracked = await trackRollouts(watched, options, deps);
  for (const { source } of watched) {
    const outcome = tracked.get(objectKey(source.ref));
    if (!outcome) continue;
    outcomes.set(objectKey(source.ref), { tracked: true, verdict: outcome.verdict, diagnosis: outcome.diagnosis, elapsedMs: outcome.elapsedMs });
  }
  return outcomes;
}
