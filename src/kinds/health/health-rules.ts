// Judging a custom resource by a health rule (model/health-rules.ts): the rule's data, read by one
// function. Order, as Argo CD's health checks: an `applied` match (a suspended or paused object,
// which nothing reconciles: Argo CD says Suspended) ends the wait at once; the status must describe the applied generation
// (status.observedGeneration, numeric or a numeric string as Argo Rollouts writes it; a
// condition's own observedGeneration); then any `failed` match fails it; then any `progressing`
// match waits; then every `healthy` match makes it healthy; anything else is waited for. A
// condition written for an older generation matches nothing. The verdict depends only on the
// status, never on when kguard first looked (issue 21). Pure.
import type { Condition, StatusConventions } from '../../kube.js';
import type { ConditionMatch, FieldMatch, HealthMatch, HealthRule, HealthRules } from '../../model/health-rules.js';
import type { ReasonRule } from '../../model/findings.js';
import { groupOf, type ObjectRef, valueAt } from '../../objects/model.js';
import type { ConditionCause, RolloutRules } from '../engine.js';
import { reportsGeneration, statusGeneration } from '../status-moment.js';
import { BUILT_IN_HEALTH_RULES, ROLLOUT_RULE_ID } from './health-table.js';
import { rolloutRules } from './rollout.js';

type Judged = StatusConventions & { status?: Record<string, unknown> };

/** The rule for a kind: picked by name (kguard.dev/health-rule), else the first whose match names its group and kind. */
export function findHealthRule(
  ref: Pick<ObjectRef, 'apiVersion' | 'kind'>,
  rules: readonly HealthRule[],
  picked?: string,
): HealthRule | undefined {
  if (picked !== undefined) return rules.find((rule) => rule.id === picked);
  const group = groupOf(ref.apiVersion);
  return rules.find((rule) =>
    rule.match.some((match) => (match.kind === '*' || match.kind === ref.kind) && groupMatches(match.group, group)),
  );
}

/** A user's rules first (a rule of the same id replaces the built-in one), then the built-in ones. */
export function mergeHealthRules(builtIn: readonly HealthRule[], user: HealthRules | undefined): HealthRule[] {
  if (!user) return [...builtIn];
  const ids = new Set(user.rules.map((rule) => rule.id));
  return [...user.rules, ...builtIn.filter((rule) => !ids.has(rule.id))];
}

function groupMatches(pattern: string, group: string): boolean {
  if (pattern.startsWith('*.')) return group.endsWith(pattern.slice(1));
  return pattern === group;
}

/** `statusGraceSeconds`: how long a status that names no generation is waited for after kguard's write (--status-grace). */
export function healthRuleRules(rule: HealthRule, kind: string, statusGraceSeconds?: number): RolloutRules<Judged> {
  // Argo Rollouts' health is not a list of matches (replicas, pod hashes, pause): its own code.
  if (rule === BUILT_IN_HEALTH_RULES.find((builtIn) => builtIn.id === ROLLOUT_RULE_ID))
    return rolloutRules(kind, statusGraceSeconds) as unknown as RolloutRules<Judged>;
  const each = [...(rule.failed ?? []), ...(rule.progressing ?? []), ...rule.healthy]
    .map((match) => ('each' in match ? match.each : undefined))
    .find((path) => path !== undefined);
  const appliedBy = (object: Judged): string | undefined =>
    (rule.applied ?? []).map((match) => matched(match, object)).find((hit) => hit !== undefined);
  return {
    controller: `${kind} controller`,
    ...(statusGraceSeconds !== undefined && rule.observedGeneration !== false
      ? {
          freshStatus: {
            reportsGeneration: (object: Judged) => appliedBy(object) !== undefined || reportsGeneration(object, each),
            graceSeconds: statusGraceSeconds,
          },
        }
      : {}),
    observed: (object) =>
      rule.observedGeneration === false || appliedBy(object) !== undefined || generationObserved(object),
    newPods: () => [],
    wait(object) {
      if (appliedBy(object) !== undefined) return undefined;
      const progressing = (rule.progressing ?? [])
        .map((match) => matched(match, object))
        .find((hit) => hit !== undefined);
      if (progressing !== undefined) return `progressing (${progressing})`;
      const missing = rule.healthy.find((match) => matched(match, object, 'every') === undefined);
      if (missing === undefined) return undefined;
      return `waiting for ${describe(missing)}${now(missing, object)} (rule ${rule.id})`;
    },
    failure(object) {
      if (appliedBy(object) !== undefined) return undefined;
      for (const match of rule.failed ?? []) {
        const hit = matched(match, object);
        if (hit === undefined) continue;
        if ('unless' in match && match.unless && unlessHolds(match.unless, object)) continue;
        const reason =
          'condition' in match
            ? (conditionsFor(match, object).find((c) => c.type === match.condition)?.reason ?? match.condition)
            : String(valueAt(object, match.field));
        const policy: ReasonRule['policy'] = match.afterSeconds
          ? { when: 'after', seconds: match.afterSeconds }
          : { when: 'now' };
        const ruleText: ReasonRule = {
          category: 'stalled',
          family: 'other',
          policy,
          cannot: `become healthy (health rule ${rule.id}: ${describe(match)})`,
          nextStep: `read its conditions and events: kubectl describe ${kind.toLowerCase()} NAME -n NAMESPACE`,
        };
        const cause: ConditionCause = { source: 'condition', reason, message: hit, rule: ruleText };
        return cause;
      }
      return undefined;
    },
    progress(object) {
      const applied = appliedBy(object);
      if (applied !== undefined)
        return {
          desired: 0,
          updated: 0,
          ready: 0,
          available: 0,
          summary: `judged applied: ${applied} (rule ${rule.id}: nothing reconciles it)`,
        };
      const shown = rule.healthy[0];
      const summary = shown ? now(shown, object).replace(/^ \(it is (.*)\)$/, '$1') || describe(shown) : rule.id;
      return { desired: 0, updated: 0, ready: 0, available: 0, summary };
    },
  };
}

/**
 * Whether the status speaks for the current generation, where it says (status-moment.ts
 * statusGeneration: status.observedGeneration, or a newer one a condition names: Flux keeps -1 at
 * the top until a first success). Argo Rollouts before v1.0 wrote a hash there, not a number:
 * nothing to compare, as Argo CD's isGenerationObserved.
 */
function generationObserved(object: Judged): boolean {
  const observed = statusGeneration(object);
  if (observed === undefined) return true;
  return observed >= (object.metadata.generation ?? 0);
}

/** What a match found, in words (the condition's or field's message); undefined when it does not match. */
function matched(match: HealthMatch, object: Judged, entriesNeeded: 'every' | 'any' = 'any'): string | undefined {
  if ('condition' in match) return matchCondition(match, object, entriesNeeded);
  return matchField(match, object);
}

function matchCondition(match: ConditionMatch, object: Judged, entriesNeeded: 'every' | 'any'): string | undefined {
  const lists =
    match.each === undefined
      ? [conditionsOf(object.status)]
      : entries(object, match.each)
          .map((entry) => conditionsOf(entry))
          .filter((conditions) => currentEntry(conditions, object));
  if (lists.length === 0) return undefined;
  const hits = lists.map((conditions) =>
    conditions.find(
      (condition) =>
        condition.type === match.condition &&
        current(condition, object) &&
        oneOf(match.status, condition.status) &&
        oneOf(match.reason, condition.reason) &&
        noneOf(match.reasonNot, condition.reason),
    ),
  );
  // Under `each`: healthy needs every entry; failed and progressing take any.
  const found = hits.find((hit) => hit !== undefined);
  if (!found || (entriesNeeded === 'every' && hits.some((hit) => hit === undefined))) return undefined;
  return [found.reason, found.message].filter(Boolean).join(': ') || `${found.type} ${found.status}`;
}

function matchField(match: FieldMatch, object: Judged): string | undefined {
  const value = valueAt(object, match.field);
  if (value === undefined || value === null) return undefined;
  if (match.equals !== undefined && !oneOf(match.equals, String(value))) return undefined;
  const message = match.message ? valueAt(object, match.message) : undefined;
  return typeof message === 'string' && message !== ''
    ? `${match.field} ${String(value)}: ${message}`
    : `${match.field} ${String(value)}`;
}

function conditionsFor(match: ConditionMatch, object: Judged): Condition[] {
  return match.each === undefined
    ? conditionsOf(object.status)
    : entries(object, match.each)
        .map((entry) => conditionsOf(entry))
        .filter((conditions) => currentEntry(conditions, object))
        .flat();
}

/**
 * An entry of a list under `each` (a route's status.parents, a Gateway's status.listeners) speaks
 * for this generation only when it has conditions and none names an older generation: Argo CD's
 * isParentGenerationObserved (HTTPRoute health.lua). An entry an implementation keeps for a
 * parentRef the spec no longer names (Envoy Gateway) stays at its old generation: it is skipped,
 * as are entries the controller has not rewritten yet.
 */
function currentEntry(conditions: readonly Condition[], object: Judged): boolean {
  return conditions.length > 0 && conditions.every((condition) => current(condition, object));
}

/** `unless` of a failed match: a condition of status.conditions that excuses it (cert-manager's Issuing True). */
function unlessHolds(unless: NonNullable<ConditionMatch['unless']>, object: Judged): boolean {
  return conditionsOf(object.status).some(
    (condition) =>
      condition.type === unless.condition &&
      current(condition, object) &&
      oneOf(unless.status, condition.status) &&
      oneOf(unless.reason, condition.reason),
  );
}

function conditionsOf(holder: unknown): Condition[] {
  const conditions = (holder as { conditions?: unknown } | undefined)?.conditions;
  return Array.isArray(conditions) ? (conditions as Condition[]) : [];
}

function entries(object: Judged, path: string): unknown[] {
  const value = valueAt(object, path);
  return Array.isArray(value) ? value : [];
}

/** A condition that names the generation it was written for speaks only for that one (metav1.Condition). */
function current(condition: Condition, object: Judged): boolean {
  return (
    condition.observedGeneration === undefined || condition.observedGeneration >= (object.metadata.generation ?? 0)
  );
}

function noneOf(unwanted: string | string[] | undefined, actual: string | undefined): boolean {
  return unwanted === undefined || actual === undefined || ![unwanted].flat().includes(actual);
}

function oneOf(wanted: string | string[] | undefined, actual: string | undefined): boolean {
  if (wanted === undefined) return true;
  return Array.isArray(wanted) ? actual !== undefined && wanted.includes(actual) : wanted === actual;
}

function describe(match: HealthMatch): string {
  if ('condition' in match) {
    const where = match.each ? ` on every ${match.each} entry` : '';
    const status = match.status === undefined ? '' : `=${[match.status].flat().join('|')}`;
    const reason =
      match.reason === undefined
        ? match.reasonNot === undefined
          ? ''
          : ` (not ${[match.reasonNot].flat().join('|')})`
        : ` (${[match.reason].flat().join('|')})`;
    return `${match.condition}${status}${reason}${where}`;
  }
  return match.equals === undefined ? `${match.field} to be set` : `${match.field}=${[match.equals].flat().join('|')}`;
}

/** What the status holds now for what a match looks at, as " (it is …)". */
function now(match: HealthMatch, object: Judged): string {
  if ('condition' in match) {
    const found = conditionsFor(match, object).find((condition) => condition.type === match.condition);
    if (!found) return ` (no ${match.condition} condition yet)`;
    if (!current(found, object)) return ` (it is for generation ${found.observedGeneration})`;
    return ` (it is ${found.status}${found.reason ? `: ${found.reason}` : ''}${found.message ? `: ${found.message}` : ''})`;
  }
  const value = valueAt(object, match.field);
  return value === undefined ? ` (${match.field} not set yet)` : ` (it is ${String(value)})`;
}
