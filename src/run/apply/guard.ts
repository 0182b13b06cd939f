// The guard between the reading and the first write of the apply: one run per object at a time
// (the leases), the copies a restore returns to (read again under the leases), and the journal that
// keeps them in the cluster for a run that dies. Each check before the write passes at its gate
// here. kguard writes only its own objects here (its Leases, its journal, expired journals it
// removes); a signal still means "nothing applied".
import { readFile, stat } from 'node:fs/promises';
import type { Clock } from '../../clock.js';
import { InputError, InterruptedError } from '../../errors.js';
import type { ImageVerdict } from '../../model/result.js';
import { thisProcess } from '../../journal/holder.js';
import { LEASE_DURATION_SECONDS } from '../../journal/lease.js';
import { acquireLeases, type HeldLeases } from '../../journal/leases.js';
import { removeJournal, type RunJournal } from '../../journal/store.js';
import type { HeldApply } from '../../kubectl/types.js';
import { digestOf } from '../../manifests/inputs.js';
import type { ApplyOptions } from '../../model/options.js';
import { objectKey, type KubeObject, type ObjectRef } from '../../objects/model.js';
import { PHASES } from '../../manifests/phases.js';
import type { PreparedJob } from '../../verify/job-manifest.js';
import type { StartedChecks } from './before-write/checks.js';
import type { Reading, RunHolds } from './before-write/reading.js';
import { cancelReason, type Deps } from './deps.js';
import { startJournal } from './journal-life.js';
import type { RunPlan } from './parts.js';
import { snapshot } from './understand.js';

export interface Guard {
  /** The apply's kubectl, started during the guard with its input held back (holdTheApply). */
  held?: HeldApply;
  /** The copies a restore returns to. */
  before: Map<string, KubeObject>;
  journal?: RunJournal;
  /** Leases for a later phase's objects (phases.ts), taken as this run's first were. */
  lease?: (claimed: readonly ObjectRef[], phase: string) => Promise<void>;
  images?: ImageVerdict[];
  verifyJobs: readonly PreparedJob[];
}

export interface GuardDeps extends Deps {
  /** The clock the leases' renewals run on: they go on while the run restores, after a signal. */
  renewalClock: Clock;
  /** Called with the run's first leases: a stop request is read on them (journal/stop.ts). */
  leased(held: HeldLeases): void;
}

export async function takeTheGuard(
  reading: Reading,
  checks: StartedChecks,
  options: ApplyOptions,
  deps: GuardDeps,
  holds: RunHolds,
): Promise<Guard> {
  // The apply's kubectl starts now, with nothing to read: its start overlaps the guard's requests.
  const held = options.dryRun ? undefined : await holdTheApply(reading, deps);
  if (held)
    holds.release.push(() => {
      held.cancel();
      return held.ended;
    });
  try {
    return { ...(await guardTheApply(reading, checks, options, deps, holds)), held };
  } catch (error) {
    // Whatever stopped the guard, the held kubectl goes having been sent nothing.
    held?.cancel();
    throw error;
  }
}

async function guardTheApply(
  reading: Reading,
  checks: StartedChecks,
  options: ApplyOptions,
  deps: GuardDeps,
  holds: RunHolds,
): Promise<Guard> {
  const { refs, runId, place, journalled, understood } = reading;
  // Old journals go while this run takes its leases and its snapshot: nothing waits for it.
  const tidied = journalled
    ? Promise.all(
        reading.expired.map((secrets) =>
          removeJournal(deps.kubectl, secrets, options.timeoutMs).catch(() => undefined),
        ),
      )
    : undefined;
  let first = true;
  // One run per object at a time: the leases come before the snapshot, so a run never records
  // another run's unverified state as its "before".
  const lease = async (claimed: readonly ObjectRef[], nameBase?: string) => {
    // The waits for other runs end on a signal; the renewals go on (renewalClock) while the run restores.
    const held = await acquireLeases(
      deps.kubectl,
      claimed,
      {
        home: options.journalNamespace,
        clusterNamespace: claimed.some((ref) => ref.namespace === '') ? options.journalNamespace : undefined,
        runId,
        nameBase,
        holder: thisProcess(),
        journalNamespace: place.home,
        durationSeconds: LEASE_DURATION_SECONDS,
        lockTimeoutMs: options.lockTimeoutMs,
        deadlineMs: options.timeoutMs,
      },
      { clock: deps.renewalClock, reporter: deps.reporter, signal: deps.signal },
    );
    holds.release.push(() => held.release());
    if (first) deps.leased(held);
    first = false;
  };
  const { images, verifyJobs = [] } = await checks.passed('leases');
  if (journalled) await lease(refs);
  // Under the leases the copies are read again; without leases, the reading of the dry run stands.
  const before = journalled || understood.pruned.length > 0 ? await snapshot(refs, deps) : understood.current;
  const guard: Guard = {
    before,
    images,
    verifyJobs,
    lease: journalled ? (claimed, phase) => lease(claimed, `${runId}-${phase}`) : undefined,
  };
  // A preview writes nothing: no journal, and its reads still end on a signal.
  if (options.dryRun) return guard;
  await checks.passed('journal');
  const [journal] = await Promise.all([
    journalled ? startJournal(runId, place, refs, before, options, deps, stagesOf(reading.plan)) : undefined,
    tidied,
  ]);
  if (deps.signal?.aborted) {
    // kguard's own cleanup is a write: it must land, not be stopped with the reads.
    deps.kubectl.stopCancelling();
    await journal?.finish().catch(() => undefined);
    throw new InterruptedError(`${cancelReason(deps.signal)} before the apply: nothing was applied.`);
  }
  deps.kubectl.stopCancelling();
  return { ...guard, journal };
}

/**
 * The apply's kubectl, started with its stdin held back, when the apply is one kubectl apply of
 * one file (a phased apply, several files or a directory are applied as before, after the guard).
 * It is sent the file's bytes as kguard read them, only once the guard holds; and only if they
 * are the bytes read while the server's dry run read the file (the history's digest of them): a
 * file changed during the run is refused before anything is written.
 */
async function holdTheApply(reading: Reading, deps: Pick<Deps, 'kubectl'>): Promise<HeldApply | undefined> {
  const { parts } = reading.plan;
  const request = parts[0]?.request;
  if (reading.plan.phased || parts.length !== 1 || !request || request.recursive || request.filenames.length !== 1)
    return undefined;
  const [file] = request.filenames;
  if (file === '-' || !(await stat(file!).catch(() => undefined))?.isFile()) return undefined;
  const bytes = await readFile(file!);
  const text = bytes.toString('utf8');
  // kubectl takes stdin as it takes a file; kguard hands it text, so only bytes that are UTF-8 as they stand.
  if (!Buffer.from(text, 'utf8').equals(bytes)) return undefined;
  const read = await reading.inputsDigest;
  if (read !== undefined && read !== digestOf([bytes]))
    throw new InputError(
      `${reading.plan.origins.get(file!) ?? file}: the file changed while kguard read it (its bytes are not those read beside the server's dry run). Nothing was applied: run again once it is written.`,
    );
  return deps.kubectl.holdApply({ ...request, filenames: ['-'], stdin: text });
}

/** Each object's phase position, for the journal: `kguard rollback` undoes later phases first. */
function stagesOf(plan: RunPlan): Map<string, number> {
  return new Map(
    plan.parts.flatMap((part) =>
      part.phase
        ? (part.understood?.refs ?? []).map((ref) => [objectKey(ref), PHASES.indexOf(part.phase!)] as const)
        : [],
    ),
  );
}
