// Every object the apply changed gets an outcome, by one mechanism: its kind's row (kinds/table.ts)
// says whether there is anything to watch; what there is, the tracker watches to a verdict; the
// rest is "applied" (with the reason when there is one: an OnDelete StatefulSet, a CronJob,
// kguard.dev/track: "false"). Objects with no status to judge (ConfigMap, Service, RBAC) are simply "applied".
import { NO_OVERRIDES, overridesOf, TRACK_ANNOTATION } from '../kinds/overrides.js';
import { judgedByKstatus, judgingRow } from '../kinds/table.js';
import type { HealthRule } from '../model/health-rules.js';
import type { Pod } from '../kube.js';
import type { Diagnosis } from '../model/findings.js';
import type { Verdict } from '../model/verdict.js';
import { kindKey, objectKey, type KubeObject, type ObjectRef } from '../objects/model.js';
import { fieldName, fieldsOfApply } from '../objects/owners.js';
import { trackRollouts, type TrackDeps, type TrackTarget } from './tracker.js';
import type { TrackOptions } from '../model/options.js';
import { labelSelectorString, type LabelSelector } from './watch-scope.js';

export interface WorkloadTarget {
  ref: ObjectRef;
  /** The object as the apply (or the restore) left it. */
  applied: KubeObject;
  /** Its pre-apply copy, if it existed. */
  before: KubeObject | undefined;
  /** Why it is watched, when not because this apply changed or created it. */
  why?: string;
}

export interface TrackedOutcome {
  tracked: boolean;
  verdict: Verdict;
  diagnosis?: Diagnosis;
  elapsedMs: number;
  /** A watched object's new pods at its verdict: where a bake starts from. */
  newPods?: Pod[];
}

/** How the tracker (and a bake) watches one object: its kind's row, its overrides, what it expects, its selector. */
export function trackTargetOf(
  target: WorkloadTarget,
  healthRules?: readonly HealthRule[],
  readinessGraceMs?: number,
  autoscaled = false,
  templatesBefore?: ReadonlyArray<Record<string, string>>,
): TrackTarget {
  const overrides = overridesOf(target.applied);
  const ours = fieldsOfApply(target.before, target.applied);
  return {
    workload: target.ref,
    expected: {
      applied: target.applied,
      ours: autoscaled ? ours.filter((field) => fieldName(field) !== 'spec.replicas') : ours,
      generationBefore: target.before?.metadata.generation,
      ...(target.before ? { before: target.before } : {}),
      ...(templatesBefore ? { templatesBefore } : {}),
    },
    row: judgingRow(target.ref, overrides, healthRules, [], { readinessGraceMs }),
    overrides,
    selector: labelSelectorString((target.applied as { spec?: { selector?: LabelSelector } }).spec?.selector),
  };
}

export async function trackWorkloads(
  targets: readonly WorkloadTarget[],
  options: TrackOptions,
  deps: TrackDeps,
): Promise<Map<string, TrackedOutcome>> {
  const outcomes = new Map<string, TrackedOutcome>();
  const watched: Array<TrackTarget & { source: WorkloadTarget; problems: string[] }> = [];
  const scaledByHpa = autoscalerTargets(targets);
  const writesStatus = await statusServed(
    targets.filter((target) => judgedByKstatus(target.ref, options.healthRules)),
    deps,
  );
  for (const target of targets) {
    const overrides = overridesOf(target.applied);
    // A kind judged by a health rule waits --status-grace for its controller's answer to kguard's
    // write (kinds/status-moment.ts); a kind judged by kstatus only when its API serves /status.
    const statusGraceMs =
      writesStatus.has(kindKey(target.ref)) || !judgedByKstatus(target.ref, options.healthRules)
        ? options.statusGraceMs
        : undefined;
    const row = judgingRow(target.ref, overrides, options.healthRules, overrides.problems, {
      readinessGraceMs: options.readinessGraceMs,
      statusGraceMs,
    });
    const unwatched = overrides.track
      ? row.unwatched(target.applied, overrides)
      : { state: 'applied' as const, detail: `${TRACK_ANNOTATION}: "false": not watched` };
    if (unwatched) {
      outcomes.set(objectKey(target.ref), { tracked: false, verdict: unwatched, elapsedMs: 0 });
      if (options.watching === 'rollout' && unwatched.detail)
        deps.reporter.emit({ kind: 'not-watched', workload: target.ref, detail: unwatched.detail });
      continue;
    }
    // The note that the autoscaler owns them comes with the verdict, once its /scale write shows.
    const autoscaled = scaledByHpa.has(objectKey(target.ref));
    watched.push({
      ...trackTargetOf(
        target,
        options.healthRules,
        undefined,
        autoscaled,
        templatesBefore(targets, target.ref.namespace),
      ),
      row,
      source: target,
      problems: overrides.problems,
    });
  }
  if (watched.length === 0) return outcomes;
  if (options.watching === 'rollout') {
    for (const { source, problems, row, overrides } of watched) {
      deps.reporter.emit({
        kind: 'tracking',
        workload: source.ref,
        fromRevision: source.before ? row?.rules(overrides ?? NO_OVERRIDES)?.revision?.(source.before) : undefined,
        detail: [source.why ?? (source.before ? 'changed by this apply' : 'created by this apply'), ...problems].join(
          '; ',
        ),
      });
    }
  }
  const tracked = await trackRollouts(watched, options, deps);
  for (const { source } of watched) {
    const outcome = tracked.get(objectKey(source.ref));
    if (!outcome) continue;
    outcomes.set(objectKey(source.ref), {
      tracked: true,
      verdict: outcome.verdict,
      diagnosis: outcome.diagnosis,
      elapsedMs: outcome.elapsedMs,
      newPods: outcome.newPods,
    });
  }
  return outcomes;
}

/**
 * The objects a HorizontalPodAutoscaler of this apply scales (spec.scaleTargetRef, in its
 * namespace): their spec.replicas is the autoscaler's from its first sync, whatever the manifest says.
 */
function autoscalerTargets(targets: readonly WorkloadTarget[]): Set<string> {
  const keys = new Set<string>();
  for (const { ref, applied } of targets) {
    if (ref.kind !== 'HorizontalPodAutoscaler' || !ref.apiVersion.startsWith('autoscaling/')) continue;
    const scaled = (applied as { spec?: { scaleTargetRef?: { apiVersion?: string; kind?: string; name?: string } } })
      .spec?.scaleTargetRef;
    if (!scaled?.kind || !scaled.name) continue;
    keys.add(
      objectKey({
        apiVersion: scaled.apiVersion ?? 'v1',
        kind: scaled.kind,
        name: scaled.name,
        namespace: ref.namespace,
      }),
    );
  }
  return keys;
}

/**
 * The kinds (group/Kind) among the targets whose API serves a status subresource, from each group
 * version's discovery (read once per run). Unknown (no discovery here, or it fails): none, and
 * kstatus judges an object without status at once, as before.
 */
async function statusServed(targets: readonly WorkloadTarget[], deps: TrackDeps): Promise<Set<string>> {
  const served = new Set<string>();
  if (!deps.kubectl.apiResources || targets.length === 0) return served;
  const resources = await deps.kubectl
    .apiResources([...new Set(targets.map((target) => target.ref.apiVersion))])
    .catch(() => undefined);
  for (const [key, resource] of resources ?? []) if (resource.statusSubresource) served.add(key);
  return served;
}

/** The pod-template labels, before the apply, of the targets in one namespace (a Deployment's spec.template). */
function templatesBefore(targets: readonly WorkloadTarget[], namespace: string): Array<Record<string, string>> {
  return targets.flatMap((target) => {
    const labels = (target.before as { spec?: { template?: { metadata?: { labels?: Record<string, string> } } } })?.spec
      ?.template?.metadata?.labels;
    return target.ref.namespace === namespace && labels ? [labels] : [];
  });
}
