// How an apply tracks, from its options: once for the rollout and once for the restore, both
// through the one builder (track/options.ts), so neither phase drops a field.
import { DEFAULTS, type ApplyOptions, type TrackOptions } from '../../model/options.js';
import { trackOptions } from '../../track/options.js';

export function trackOptionsFor(
  options: Pick<
    ApplyOptions,
    | 'timeoutMs'
    | 'rollbackTimeoutMs'
    | 'pollIntervalMs'
    | 'rollback'
    | 'poll'
    | 'logLines'
    | 'healthRules'
    | 'readinessGraceMs'
    | 'statusGraceMs'
  >,
  phase: 'rollout' | 'rollback',
): TrackOptions {
  const rollout = phase === 'rollout';
  return trackOptions(
    { ...options, watch: !options.poll },
    phase,
    rollout ? options.timeoutMs : options.rollbackTimeoutMs,
    {
      // The others are undone with a failing one under --rollback all: no need to watch them on.
      stopWhenAnyFails: rollout && options.rollback === 'all',
      // The restore puts back what ran before: it is waited for, not judged again by a grace.
      readinessGraceMs: rollout ? (options.readinessGraceMs ?? DEFAULTS.readinessGraceMs) : undefined,
    },
  );
}
