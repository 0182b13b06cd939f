// `kguard rollback` of a run that is still live: ask it, through its Leases, to stop (journal/stop.ts),
// and wait for it. A run that answers restores what it changed itself and exits 130; this command
// waits for it to end (at most its --rollback-timeout and a margin). A run that does not answer
// (its process stuck, or gone while its Lease is still fresh: killed without a signal on another
// machine) is treated as today: it is restored from its journal once its Lease stands still.
import { hostname } from 'node:os';
import { KubectlError } from '../../errors.js';
import { LEASE_TYPE } from '../../journal/held-leases.js';
import { livenessOf } from '../../journal/liveness.js';
import { LEASE_DURATION_SECONDS } from '../../journal/lease.js';
import { requestStop, stopAnswerOf } from '../../journal/stop.js';
import type { Clock } from '../../clock.js';
import type { HolderProbe } from '../../journal/holder.js';
import type { Kubectl } from '../../kubectl/types.js';
import type { Reporter } from '../../model/events.js';
import type { KubeObject } from '../../objects/model.js';
import type { RunRecord } from '../../journal/runs.js';

interface StopDeps {
  kubectl: Pick<Kubectl, 'getObject' | 'replace'>;
  clock: Clock;
  reporter: Reporter;
  probe: HolderProbe;
}

/** How long a live run has to answer: it reads its Lease every second. */
export const ANSWER_WAIT_MS = 15_000;
/** How often this command reads the run's Leases while it waits. */
const POLL_MS = 500;

/** What the wait ended with: the run ended (answered or not), or it is dead and this command restores it. */
export type StopOutcome = { ended: 'answered' | 'dead'; waitedMs: number };

/**
 * Asks `run` to stop and waits until it has ended (its Leases gone) or is dead (its process gone,
 * or its Lease unrenewed for the Lease's duration). Throws, naming the run, when it does neither in time.
 */
export async function stopLiveRun(run: RunRecord, deadlineMs: number, deps: StopDeps): Promise<StopOutcome> {
  const startedAt = Date.now();
  const by = `${hostname()} (pid ${process.pid})`;
  const asked = await requestStop(
    deps.kubectl,
    run.runId,
    run.leases,
    { at: new Date().toISOString(), by },
    Math.min(deadlineMs, 30_000),
  );
  if (asked === 0)
    throw new KubectlError(
      `run ${run.runId} is running (${run.liveness.why}), and kguard could not write a stop request on any of its Leases: check that you may update leases in namespace ${namespacesOf(run.leases)}, then kguard rollback ${run.runId} again, or stop its process.`,
    );
  deps.reporter.emit({
    kind: 'stopping-run',
    runId: run.runId,
    step: 'asked',
    detail: `running (${run.liveness.why}): asked it to stop through its Lease; it restores what it changed and exits 130 (waiting up to ${Math.round(ANSWER_WAIT_MS / 1000)}s for its answer)`,
  });
  let answered = false;
  let saidUnanswered = false;
  const answerBy = startedAt + ANSWER_WAIT_MS;
  // Unanswered: restored here once its Lease has stood still for its whole duration.
  const deadBy = startedAt + LEASE_DURATION_SECONDS * 1000 + 30_000;
  const still = standingStill();
  for (;;) {
    const leases = await readLeases(run.leases, deps);
    if (leases.length === 0) {
      deps.reporter.emit({
        kind: 'stopping-run',
        runId: run.runId,
        step: 'ended',
        detail: `ended ${Math.round((Date.now() - startedAt) / 100) / 10}s after the request`,
      });
      return { ended: answered ? 'answered' : 'dead', waitedMs: Date.now() - startedAt };
    }
    if (!answered && leases.some((lease) => stopAnswerOf(lease))) {
      answered = true;
      deps.reporter.emit({
        kind: 'stopping-run',
        runId: run.runId,
        step: 'answered',
        detail: 'answered: it is restoring what its apply changed; waiting for it to end',
      });
    }
    const liveness = livenessOf(run.journal, leases, Date.now(), deps.probe);
    if (liveness.state === 'dead') return { ended: 'dead', waitedMs: Date.now() - startedAt };
    // Stuck (SIGSTOP, a frozen VM) or gone elsewhere: its Leases stood still for their whole
    // duration as this process saw them (their resourceVersion, by this process's own clock).
    if (!answered && still(leases, deps.clock.now()) > LEASE_DURATION_SECONDS * 1000) {
      deps.reporter.emit({
        kind: 'stopping-run',
        runId: run.runId,
        step: 'unanswered',
        detail: `its Lease stood still for ${LEASE_DURATION_SECONDS}s (not renewed since the stop request): restoring it from its journal`,
      });
      return { ended: 'dead', waitedMs: Date.now() - startedAt };
    }
    const now = Date.now();
    if (!answered && now > answerBy && !saidUnanswered) {
      saidUnanswered = true;
      deps.reporter.emit({
        kind: 'stopping-run',
        runId: run.runId,
        step: 'unanswered',
        detail: `did not answer within ${Math.round(ANSWER_WAIT_MS / 1000)}s (${liveness.why}): kguard restores it from its journal once its Lease stands still (at most ${LEASE_DURATION_SECONDS}s)`,
      });
    }
    if ((answered && now > startedAt + deadlineMs + 30_000) || (!answered && now > deadBy))
      throw new KubectlError(
        answered
          ? `run ${run.runId} answered the stop request but did not end within --rollback-timeout (${Math.round(deadlineMs / 1000)}s): kguard status shows it; run kguard rollback ${run.runId} again once it has ended.`
          : `run ${run.runId} neither answered the stop request nor stopped renewing its Lease (${liveness.why}): it may be an older kguard. Stop its process, then kguard rollback ${run.runId}; or kguard rollback ${run.runId} --force to restore it while it runs.`,
      );
    await deps.clock.sleep(POLL_MS);
  }
}

/**
 * How long the Leases have stood still, as this process saw them: the time since any of their
 * resourceVersions last moved (the run's renewals move them; the API server assigns them).
 */
function standingStill(): (leases: readonly KubeObject[], now: number) => number {
  let versions = '';
  let since = 0;
  return (leases, now) => {
    const seen = leases.map((lease) => `${lease.metadata.uid}/${lease.metadata.resourceVersion}`).join(',');
    if (seen !== versions) {
      versions = seen;
      since = now;
    }
    return now - since;
  };
}

/** The run's Leases as they are now; the ones gone (or another run's) are left out. */
async function readLeases(leases: readonly KubeObject[], deps: Pick<StopDeps, 'kubectl'>): Promise<KubeObject[]> {
  const read = await Promise.all(
    leases.map((lease) =>
      deps.kubectl
        .getObject(LEASE_TYPE, lease.metadata.namespace ?? '', lease.metadata.name)
        // A read that fails says nothing: the Lease counts as it was.
        .catch(() => lease),
    ),
  );
  return read.filter((lease, index): lease is KubeObject => {
    const seen = leases[index]!.metadata.uid;
    return lease !== undefined && (seen === undefined || lease.metadata.uid === seen);
  });
}

function namespacesOf(leases: readonly KubeObject[]): string {
  return [...new Set(leases.map((lease) => lease.metadata.namespace ?? ''))].join(', ');
}
