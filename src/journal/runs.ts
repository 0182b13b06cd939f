// The runs a cluster shows: their journals and their Leases, and whether each run is alive.
// `kguard status` lists them; `rollback`, `unlock` and `forget` pick one and refuse a live one.
import { InputError } from '../errors.js';
import type { Kubectl } from '../kubectl/types.js';
import type { HolderProbe } from './holder.js';
import type { Journal } from './journal.js';
import { leaseHolder, LEASE_SELECTOR } from './lease.js';
import { LEASE_TYPE } from './held-leases.js';
import { journalExpired, livenessOf, type RunLiveness } from './liveness.js';
import { newestServerTime, serverNow as readServerNow } from './server-clock.js';
import { listJournals, type JournalSecretRef } from './store.js';
import { stopAnswerOf, stopRequestOf } from './stop.js';
import type { KubeObject } from '../objects/model.js';

export interface RunRecord {
  runId: string;
  /** Undefined: the run holds Leases but wrote no journal (it is taking them, or died doing so). */
  journal?: Journal;
  /** Its journal Secrets found (a journal is one or more Secrets per namespace). */
  secrets: JournalSecretRef[];
  /** Namespaces where some of its journal Secrets could not be found or read. */
  missing: string[];
  /** Over and older than a day by the API server's clock (journal/liveness.ts journalExpired): the next run deletes it. */
  expired: boolean;
  leases: KubeObject[];
  liveness: RunLiveness;
}

type RunsKubectl = Pick<Kubectl, 'listLabelled' | 'create' | 'replace' | 'deleteExact' | 'getObject'>;

/** How long the read of the API server's clock may take (a server dry run: one small request). */
const SERVER_CLOCK_DEADLINE_MS = 10_000;

/**
 * Every run with a journal or a Lease: in one namespace, or in all of them. Each run's life and
 * its journal's age are told by the API server's clock (journal/server-clock.ts), read only when
 * some run is found; `now` is this machine's, for the waits that follow.
 */
export async function listRuns(
  kubectl: RunsKubectl,
  namespace: string | undefined,
  now: number,
  probe: HolderProbe,
): Promise<RunRecord[]> {
  const [listings, leases] = await Promise.all([
    listJournals(kubectl, namespace),
    kubectl.listLabelled(LEASE_TYPE, namespace, LEASE_SELECTOR),
  ]);
  const server =
    listings.length === 0 && leases.length === 0
      ? undefined
      : ((await readServerNow(
          kubectl,
          namespace ?? listings[0]?.journal.namespace ?? leases[0]?.metadata.namespace ?? 'default',
          SERVER_CLOCK_DEADLINE_MS,
        )) ?? newestServerTime(leases));
  const leasesOf = new Map<string, KubeObject[]>();
  for (const lease of leases) leasesOf.set(leaseHolder(lease), [...(leasesOf.get(leaseHolder(lease)) ?? []), lease]);
  const runs: RunRecord[] = listings.map(({ journal, createdAt, secrets, missing }) => {
    const held = leasesOf.get(journal.runId) ?? [];
    leasesOf.delete(journal.runId);
    const liveness = livenessOf(journal, held, now, probe, server);
    return {
      runId: journal.runId,
      journal,
      secrets,
      missing,
      expired: journalExpired({ journal, createdAt, leases: held, liveness }, server),
      leases: held,
      liveness,
    };
  });
  for (const [runId, held] of leasesOf)
    runs.push({
      runId,
      secrets: [],
      missing: [],
      expired: false,
      leases: held,
      liveness: livenessOf(undefined, held, now, probe, server),
    });
  return runs.sort((left, right) => left.runId.localeCompare(right.runId));
}

/** What `kguard status` says of one run, and the command that finishes it. */
export function statusLine(run: RunRecord, now: Date, withNext = true): string {
  const { journal, liveness } = run;
  const stop = stopOf(run);
  const life = `${liveness.state === 'live' ? 'running' : liveness.state}: ${liveness.why}${stop ? `; ${stop}` : ''}`;
  if (!journal) {
    const namespaces = [...new Set(run.leases.map((lease) => lease.metadata.namespace ?? ''))].sort().join(', ');
    const next = !withNext || liveness.state === 'live' ? '' : `  →  kguard unlock ${run.runId}`;
    return `${run.runId}  Leases in namespace ${namespaces}, no journal  ${life}${next}`;
  }
  const ageMinutes = Math.max(0, Math.round((now.getTime() - Date.parse(journal.startedAt)) / 60_000));
  const where = STATE_WORDS[journal.state];
  const next =
    !withNext || liveness.state === 'live'
      ? ''
      : liveness.state === 'finished'
        ? `  →  kguard forget ${run.runId}`
        : `  →  kguard rollback ${run.runId}`;
  return (
    `${run.runId}${journal.runLabel ? ` (label ${journal.runLabel})` : ''}  ${journalWhere(run)}  ${journal.objects.length} object(s)  started ${ageMinutes}m ago  ${where}  ${life}` +
    `${run.expired ? '  (expired: deleted by the next run)' : ''}${next}`
  );
}

/** A stop asked of the run (kguard rollback of a live run), and whether it answered. */
export function stopOf(run: Pick<RunRecord, 'leases'>): string | undefined {
  const request = run.leases.map(stopRequestOf).find(Boolean);
  if (!request) return undefined;
  const answered = run.leases.map(stopAnswerOf).find(Boolean);
  return answered
    ? `stopping: asked by ${request.by} at ${request.at}, restoring what it changed`
    : `stop pending: asked by ${request.by} at ${request.at}, not answered yet`;
}

/** "namespace shop", or, for a journal in several Secrets, "journal in shop (2), kube-system (1)"; and what could not be read. */
function journalWhere(run: RunRecord): string {
  const pieces = Object.entries(run.journal?.pieces ?? { [run.journal?.namespace ?? '']: 1 });
  const where =
    pieces.length === 1 && pieces[0]![1] === 1
      ? `namespace ${pieces[0]![0]}`
      : `journal in ${pieces.map(([namespace, count]) => `${namespace} (${count})`).join(', ')}`;
  return run.missing.length > 0 ? `${where} (not all read in ${run.missing.join(', ')})` : where;
}

const STATE_WORDS: Record<Journal['state'], string> = {
  applying: 'was applying',
  applied: 'applied, not verified or restored',
  restoring: 'was restoring',
  finished: 'ended',
};

export function statusLines(runs: readonly RunRecord[], now: Date): string[] {
  if (runs.length === 0) return ['no unfinished kguard runs'];
  return runs.map((run) => statusLine(run, now));
}

/**
 * The run a command acts on: the one named, or (rollback) the only journalled run that is not
 * alive and not finished. A live run, a finished one, or one whose life cannot be told is refused
 * unless `force`: restoring a live run takes back a deploy that may be healthy.
 */
export function pickRun(
  runs: readonly RunRecord[],
  runId: string | undefined,
  command: 'rollback' | 'unlock' | 'forget',
  force: boolean,
  /** rollback: a live run is picked too, to be asked to stop (run/rollback/stop-live.ts). */
  stopLive = false,
): RunRecord {
  const run = runId ? runs.find((candidate) => candidate.runId === runId) : onlyUnfinished(runs, stopLive);
  if (!run)
    throw new InputError(
      `no journal or Lease of run ${runId} found (kguard status lists the runs); it may have finished or expired.`,
    );
  if (command === 'rollback' && !run.journal) {
    throw new InputError(
      `run ${run.runId} left Leases but no journal: nothing to roll back. kguard unlock ${run.runId} releases its Leases.`,
    );
  }
  if (force) return run;
  const { liveness } = run;
  if (stopLive && command === 'rollback' && liveness.state === 'live' && run.leases.length > 0) return run;
  if (liveness.state === 'live') {
    throw new InputError(
      `run ${run.runId} is still running (${liveness.why}): kguard ${command} would undo a live run. Let it finish, or stop it; if you are sure it is gone, kguard ${command} ${run.runId} --force.`,
    );
  }
  if (liveness.state === 'unknown') {
    throw new InputError(
      `kguard cannot tell whether run ${run.runId} still runs (${liveness.why}). If you are sure it has ended, kguard ${command} ${run.runId} --force.`,
    );
  }
  if (liveness.state === 'finished' && command === 'rollback') {
    throw new InputError(
      `run ${run.runId} finished (${liveness.why}): there is nothing to roll back. kguard forget ${run.runId} removes its journal.`,
    );
  }
  if (command === 'unlock' && run.journal && liveness.state === 'dead') {
    throw new InputError(
      `run ${run.runId} died and left a journal: its objects may be half-applied. kguard rollback ${run.runId} restores them and releases its Leases; kguard forget ${run.runId} leaves them as they are.`,
    );
  }
  return run;
}

function onlyUnfinished(runs: readonly RunRecord[], stopLive: boolean): RunRecord {
  const journalled = runs.filter((run) => run.journal && run.liveness.state !== 'finished');
  if (journalled.length === 0)
    throw new InputError('there is no unfinished kguard run to roll back (no journal found).');
  const stopped = journalled.filter((run) => run.liveness.state !== 'live');
  if (stopped.length === 1) return stopped[0]!;
  if (stopped.length === 0 && stopLive && journalled.length === 1) return journalled[0]!;
  if (stopped.length === 0) {
    const names = journalled.map((run) => `${run.runId} (${run.liveness.why})`).join(', ');
    throw new InputError(
      `every unfinished kguard run is still running: ${names}. Name one with --force to roll it back anyway.`,
    );
  }
  throw new InputError(
    `${stopped.length} unfinished kguard runs: name one (${stopped.map((run) => run.runId).join(', ')}).`,
  );
}
