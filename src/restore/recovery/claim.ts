// One kguard at a time finishes a dead run (#45). Three CI retries of a killed job start at once;
// each finds the dead run's journal. Restoring it three times over races: the second took the
// first's writes for someone else's change and exited 4 for work already done. So a retry first
// claims the dead run on its home journal Secret with a conditional PUT (the resourceVersion it
// read: the API server lets exactly one of several such writes through, 409 Conflict for the
// others) naming its own process. The others wait while the claimer runs, and go on when the
// journal is gone (finished: what they read as "before" is now the true one). A claim of a process
// that has ended on this machine is taken over at once; one from another machine once the Secret
// has stood still (same resourceVersion, as this process saw it) for longer than a restore may take.
// `kguard rollback` takes the same claim (run/rollback/rollback.ts): a retry and a person's rollback of
// the same dead run restore it once, the other waiting.
import type { Clock } from '../../clock.js';
import type { Kubectl } from '../../kubectl/types.js';
import type { KubeObject } from '../../objects/model.js';
import {
  holderAnnotations,
  holderOfAnnotations,
  thisProcess,
  type HolderProbe,
  type RunHolder,
} from '../../journal/holder.js';
import { journalName } from '../../journal/journal.js';
import { LEASE_DURATION_SECONDS } from '../../journal/lease.js';
import type { RunRecord } from '../../journal/runs.js';

export const RECOVERING_BY_ANNOTATION = 'kguard.dev/recovering-by';

type ClaimKubectl = Pick<Kubectl, 'getObject' | 'replace'>;

export interface ClaimDeps {
  kubectl: ClaimKubectl;
  clock: Clock;
  probe: HolderProbe;
  signal?: AbortSignal;
  /** Said once, when another process holds the claim and this one starts to wait. */
  onWait?: (by: string) => void;
}

/** How the claim ended: this process finishes the run, or another one finished it (its journal is gone). */
export type ClaimOutcome = { claimed: true } | { claimed: false; by: string };

const POLL_MS = 1_000;

const secretPath = (namespace: string, name: string) =>
  `/api/v1/namespaces/${encodeURIComponent(namespace)}/secrets/${encodeURIComponent(name)}`;

/** The claimer named on a journal Secret: its process (host, pid, start). */
export function claimerOf(secret: KubeObject): RunHolder | undefined {
  const raw = secret.metadata.annotations?.[RECOVERING_BY_ANNOTATION];
  if (!raw) return undefined;
  const [host, pid] = raw.split(' ');
  return holderOfAnnotations({ 'kguard.dev/holder-host': host ?? '', 'kguard.dev/holder-pid': pid ?? '' });
}

function describe(holder: RunHolder): string {
  return `${holder.host} (pid ${holder.pid})`;
}

/**
 * Claims the dead run `runId` (home journal Secret in `home`, uid `uid`) for `self`, or waits
 * until the process that claimed it has finished it. `standStillMs`: how long a claim from another
 * machine may stand still before it is taken over. Throws when `deadlineMs` passes first.
 */
export async function claimRecovery(
  target: { runId: string; home: string; uid?: string },
  self: RunHolder,
  limits: { standStillMs: number; deadlineMs: number; requestDeadlineMs: number },
  deps: ClaimDeps,
): Promise<ClaimOutcome> {
  const name = journalName(target.runId);
  const started = deps.clock.now();
  let seen: { resourceVersion?: string; since: number } = { since: started };
  let lastClaimer: RunHolder | undefined;
  for (;;) {
    if (deps.signal?.aborted) throw new Error(`stopped while waiting for run ${target.runId} to be finished`);
    const secret = await deps.kubectl.getObject('secrets', target.home, name);
    if (!secret || (target.uid !== undefined && secret.metadata.uid !== target.uid))
      return { claimed: false, by: lastClaimer ? describe(lastClaimer) : 'another kguard' };
    const claimer = claimerOf(secret);
    const now = deps.clock.now();
    if (seen.resourceVersion !== secret.metadata.resourceVersion)
      seen = { resourceVersion: secret.metadata.resourceVersion, since: now };
    const state = claimer ? deps.probe(claimer) : 'gone';
    const mine = claimer && claimer.host === self.host && claimer.pid === self.pid;
    const free =
      !claimer || mine || state === 'gone' || (state === 'elsewhere' && now - seen.since > limits.standStillMs);
    if (free) {
      const annotations = { ...secret.metadata.annotations, [RECOVERING_BY_ANNOTATION]: claimValue(self) };
      const written = await deps.kubectl.replace(
        { ...secret, metadata: { ...secret.metadata, annotations } },
        secretPath(target.home, name),
        limits.requestDeadlineMs,
      );
      if (written.ok) return { claimed: true };
      if (written.notFound) return { claimed: false, by: lastClaimer ? describe(lastClaimer) : 'another kguard' };
      // 409: another retry claimed it between the read and the write; read it again.
      if (!written.conflict)
        throw new Error(`kguard could not claim run ${target.runId}'s journal: ${written.message}`);
      continue;
    }
    if (!lastClaimer) deps.onWait?.(describe(claimer!));
    lastClaimer = claimer;
    if (now - started > limits.deadlineMs)
      throw new Error(
        `run ${target.runId} is being finished by another kguard, ${describe(claimer!)}, which did not end within ${Math.round(limits.deadlineMs / 1000)}s`,
      );
    await deps.clock.sleep(POLL_MS, deps.signal);
  }
}

function claimValue(holder: RunHolder): string {
  const annotations = holderAnnotations(holder);
  return `${annotations['kguard.dev/holder-host']} ${annotations['kguard.dev/holder-pid']}`;
}

/**
 * Claims `run` for this process, or waits for the kguard that claimed it (claimRecovery).
 * A claim from another machine is taken over once it has stood still for longer than a restore
 * may take: the run's request timeout, this restore's deadline and a Lease's duration.
 */
export function claimRun(
  run: RunRecord,
  deadlineMs: number,
  deps: Omit<ClaimDeps, 'onWait'>,
  onWait: (by: string) => void,
) {
  const journal = run.journal!;
  const home = journal.home ?? journal.namespace;
  const uid = run.secrets.find((secret) => secret.namespace === home && secret.name === journalName(run.runId))?.uid;
  const restoreMs = (journal.requestTimeoutMs ?? 0) + deadlineMs + LEASE_DURATION_SECONDS * 1000;
  return claimRecovery(
    { runId: run.runId, home, uid },
    thisProcess(),
    { standStillMs: restoreMs, deadlineMs: 2 * restoreMs, requestDeadlineMs: 30_000 },
    { kubectl: deps.kubectl, clock: deps.clock, probe: deps.probe, signal: deps.signal, onWait },
  );
}
