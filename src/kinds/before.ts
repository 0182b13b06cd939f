// What the pre-apply read recorded about an object's health: a restore is judged against the
// state before the apply, not against "healthy". An object back at its pre-apply copy that fails
// as it failed before was restored; only one worse than before needs a person. Judged by the same
// rules as the tracking, on the pre-apply copy's own status (its counters, conditions, phase), at
// its deadline: a wait there means it was not healthy either. Pure.
import { snapshotOf } from '../kubectl/resources.js';
import type { HealthRule } from '../model/health-rules.js';
import type { KubeObject, ObjectRef } from '../objects/model.js';
import { judge, verdictText } from './engine.js';
import { overridesOf } from './overrides.js';
import { judgingRow } from './table.js';

/** Why the pre-apply copy was not healthy, in its rules' words; undefined when it was (or cannot be judged). */
export function failingBeforeApply(
  ref: Pick<ObjectRef, 'apiVersion' | 'kind'>,
  before: KubeObject | undefined,
  healthRules?: readonly HealthRule[],
): string | undefined {
  if (!before || (before as { status?: unknown }).status === undefined) return undefined;
  const overrides = overridesOf(before);
  if (!overrides.track) return undefined;
  const row = judgingRow(ref, overrides, healthRules);
  if (row.unwatched(before, overrides)) return undefined;
  const rules = row.rules(overrides);
  if (!rules) return undefined;
  const verdict = judge(rules, { object: before, snapshot: snapshotOf([before]) }, { applied: before }, new Map(), {
    now: 0,
    startedAt: 0,
    timeoutMs: 0,
  });
  if (verdict.state === 'healthy') return undefined;
  return verdictText(verdict) ?? `it was ${verdict.state}`;
}
