// The one builder of tracking options: the rollout, the restore, `kguard undo` and a verify Job
// all track through it, so none drops a field (the --log-lines 0 bug came from a copy that did).
import { mergeHealthRules } from '../kinds/health/health-rules.js';
import { BUILT_IN_HEALTH_RULES } from '../kinds/health/health-table.js';
import type { HealthRules } from '../model/health-rules.js';
import { DEFAULTS, type TrackOptions } from '../model/options.js';

/** What every phase tracks with, from the user's flags. */
export interface TrackSettings {
  pollIntervalMs: number;
  /** Watch (the default); false: poll (--poll). */
  watch: boolean;
  logLines: number;
  /** --health-rules, added to the built-in table. */
  healthRules?: HealthRules;
  statusGraceMs?: number;
}

export function trackOptions(
  settings: TrackSettings,
  watching: TrackOptions['watching'],
  timeoutMs: number,
  extra: Pick<TrackOptions, 'readinessGraceMs'> & { stopWhenAnyFails?: boolean } = {},
): TrackOptions {
  return {
    timeoutMs,
    pollIntervalMs: settings.pollIntervalMs,
    watching,
    stopWhenAnyFails: extra.stopWhenAnyFails ?? false,
    watch: settings.watch,
    logLines: settings.logLines,
    healthRules: mergeHealthRules(BUILT_IN_HEALTH_RULES, settings.healthRules),
    ...(extra.readinessGraceMs === undefined ? {} : { readinessGraceMs: extra.readinessGraceMs }),
    statusGraceMs: settings.statusGraceMs ?? DEFAULTS.statusGraceMs,
  };
}
