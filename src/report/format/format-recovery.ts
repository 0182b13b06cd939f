// How kguard says it lives through a run that died and an API server that went away (#29): a dead
// run finished first (restore/recovery/dead-runs.ts), and one line per outage (track/outage.ts).
import type { RunEvent } from '../../model/events.js';

type RecoveryEvent = Extract<RunEvent, { kind: 'poll-error' | 'poll-recovered' | 'recovering-run' | 'recovered-run' }>;
type RecoveryFormatters = {
  [K in RecoveryEvent['kind']]: (event: Extract<RecoveryEvent, { kind: K }>) => { tone: 'warn' | 'info'; text: string };
};

export const RECOVERY_FORMATTERS: RecoveryFormatters = {
  'poll-error': (event) => ({
    tone: 'warn',
    text:
      event.forMs === undefined
        ? `could not read workloads in namespace ${event.namespace}${event.since ? ` since ${clockTime(event.since)}` : ''}: ${event.message}; kguard keeps retrying until --timeout and says when they answer again`
        : `still cannot read workloads in namespace ${event.namespace}, for ${Math.round(event.forMs / 1000)}s now: ${event.message}; kguard keeps retrying until --timeout`,
  }),
  'poll-recovered': (event) => ({
    tone: 'info',
    text: `workloads in namespace ${event.namespace} can be read again, after ${Math.round(event.afterMs / 1000)}s without an answer`,
  }),
  'recovering-run': (event) => ({
    tone: 'warn',
    text: event.by
      ? `run ${event.runId} died and left its journal on ${event.objects.length} object(s) of this apply (${event.why}); another kguard, ${event.by}, is restoring them from that journal: waiting for it before this run reads its "before"`
      : `run ${event.runId} died and left its journal on ${event.objects.length} object(s) of this apply (${event.why}): restoring them from that journal before this run reads its "before"`,
  }),
  'recovered-run': (event) => ({
    tone: 'info',
    text: event.by
      ? `run ${event.runId} finished first, by another kguard (${event.by}): its journal is gone; this run reads its "before" now`
      : `run ${event.runId} finished first: ${event.restored} object(s) restored from its journal, ${event.untouched} already as before it; its journal and Leases removed`,
  }),
};

/** 12:04:05 UTC, of an ISO time: when an outage began. */
function clockTime(iso: string): string {
  return `${iso.slice(11, 19)} UTC`;
}
