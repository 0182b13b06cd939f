// Per-object overrides, as annotations on the object in the manifest. Pure.
//   kguard.dev/track: "false"        applied but never watched (it is still restored with the apply)
//   kguard.dev/timeout: "10m"        this object's own --timeout (Go duration, as the flag)
//   kguard.dev/must-succeed: "false" Jobs: done once their pods run, not when they complete
//   kguard.dev/failures-allowed: "3" a new pod's container may crash (restart) that many times before it fails the rollout
//   kguard.dev/health: "ignore"      never judged: applied is done (it is still restored with the apply)
//   kguard.dev/health-rule: "<id>"   judge it by that health rule (health-table.ts, --health-rules)
import { InputError } from '../errors.js';
import { parseDuration } from '../duration.js';
import type { KubeObject } from '../objects/model.js';

export const TRACK_ANNOTATION = 'kguard.dev/track';
export const TIMEOUT_ANNOTATION = 'kguard.dev/timeout';
export const MUST_SUCCEED_ANNOTATION = 'kguard.dev/must-succeed';
export const HEALTH_ANNOTATION = 'kguard.dev/health';
export const FAILURES_ALLOWED_ANNOTATION = 'kguard.dev/failures-allowed';
export const HEALTH_RULE_ANNOTATION = 'kguard.dev/health-rule';

export interface Overrides {
  track: boolean;
  /** This object's deadline; undefined: --timeout (or --rollback-timeout after a restore). */
  timeoutMs?: number;
  /** Jobs: wait for Complete (true, the default) or only for their pods to run. */
  mustSucceed: boolean;
  /** kguard.dev/health: "ignore": never judged, applied counts as done. */
  ignoreHealth?: boolean;
  /** kguard.dev/failures-allowed: crashes of a new pod's container tolerated before it fails the rollout. */
  failuresAllowed?: number;
  /** kguard.dev/health-rule: the id of the health rule to judge it by. */
  healthRule?: string;
  /** Annotations kguard could not read; they are ignored and said. */
  problems: string[];
}

export const NO_OVERRIDES: Overrides = { track: true, mustSucceed: true, problems: [] };

export function overridesOf(object: Pick<KubeObject, 'metadata'>): Overrides {
  const annotations = object.metadata.annotations ?? {};
  const problems: string[] = [];
  const flag = (name: string, fallback: boolean): boolean => {
    const value = annotations[name];
    if (value === undefined) return fallback;
    if (value === 'true' || value === 'false') return value === 'true';
    problems.push(`${name}: ${JSON.stringify(value)} is not "true" or "false"; ignored`);
    return fallback;
  };
  const track = flag(TRACK_ANNOTATION, true);
  const mustSucceed = flag(MUST_SUCCEED_ANNOTATION, true);
  let timeoutMs: number | undefined;
  const timeout = annotations[TIMEOUT_ANNOTATION];
  if (timeout !== undefined) {
    try {
      timeoutMs = parseDuration(timeout, TIMEOUT_ANNOTATION);
    } catch (error) {
      if (!(error instanceof InputError)) throw error;
      problems.push(
        `${TIMEOUT_ANNOTATION}: ${JSON.stringify(timeout)} is not a duration (use 90s, 5m, 1m30s); --timeout applies`,
      );
    }
  }
  const health = annotations[HEALTH_ANNOTATION];
  const ignoreHealth = health === 'ignore' ? true : undefined;
  if (health !== undefined && health !== 'ignore')
    problems.push(`${HEALTH_ANNOTATION}: ${JSON.stringify(health)} is not "ignore"; ignored`);
  const rule = annotations[HEALTH_RULE_ANNOTATION]?.trim();
  const healthRule = rule ? rule : undefined;
  const allowed = annotations[FAILURES_ALLOWED_ANNOTATION];
  let failuresAllowed: number | undefined;
  if (allowed !== undefined) {
    if (/^\d+$/.test(allowed.trim())) failuresAllowed = Number(allowed.trim());
    else
      problems.push(
        `${FAILURES_ALLOWED_ANNOTATION}: ${JSON.stringify(allowed)} is not a number of restarts (use "3"); ignored`,
      );
  }
  return {
    track,
    timeoutMs,
    mustSucceed,
    problems,
    ...(failuresAllowed !== undefined ? { failuresAllowed } : {}),
    ...(ignoreHealth ? { ignoreHealth } : {}),
    ...(healthRule ? { healthRule } : {}),
  };
}
