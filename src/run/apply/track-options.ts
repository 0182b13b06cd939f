// How a run tracks, from its options: once for the rollout and once for the restore, built in
// one place so neither phase drops a field (--log-lines 0 reads no logs in either).
import { mergeHealthRules } from '../../kinds/health/health-rules.js';
import { BUILT_IN_HEALTH_RULES } from '../../kinds/health/health-table.js';
import { DEFAULTS, type ApplyOptions, type TrackOptions } from '../../model/options.js';

export function trackOptionsFor(options: ApplyOptions, phase: TrackOptions['phase']): TrackOptions {
  const rollout = phase === 'rollout';
  return {
    timeoutMs: rollout ? options.timeoutMs : options.rollbackTimeoutMs,
    pollIntervalMs: options.pollIntervalMs,
    phase,
    // The others are undone with a failing one under --rollback all: no need to watch them on.
    stopWhenAnyFails: rollout && options.rollback === 'all',
    watch: !options.poll,
    logLines: options.logLines,
    healthRules: mergeHealthRules(BUILT_IN_HEALTH_RULES, options.healthRules),
    // The restore puts back what ran before: it is waited for, not judged again by a grace.
    ...(rollout ? { readinessGraceMs: options.readinessGraceMs ?? DEFAULTS.readinessGraceMs } : {}),
    statusGraceMs: options.statusGraceMs ?? DEFAULTS.statusGraceMs,
  };
}
