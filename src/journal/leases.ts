// When a run may go in: before its snapshot, a run takes Leases on its objects (lease.ts: one per
// namespace, listing its objects there; held-leases.ts: their life), so a second run on the same
// objects waits instead of recording the first run's unverified state as its "before".
//
// Taking them is Lamport's bakery over the API server:
// 1. Create the run's Lease in each namespace it touches (no ticket), then list each namespace's
//    kguard Leases (one list per namespace, whatever the number of objects).
// 2. No other Lease lists one of the run's objects: go in.
// 3. Otherwise take a ticket one above every ticket in those lists (written to the run's Leases
//    with conditional PUTs) and wait, listing, until no Lease on its objects goes before it: none
//    without a ticket (its run is choosing, or went straight in), none with a lower ticket (equal
//    tickets: the lower run id). The waiting run keeps its Lease, so it keeps its place: runs are
//    served in the order they came, none is starved, and a crowd does not livelock.
// 4. Past --lock-timeout: delete the Leases and exit 2 naming the holder.
// Runs on objects apart never wait for each other: a Lease only stands in the way of the objects it lists.
//
// Why two runs that share an object are never in together: docs/design/leases.md.
// The one way past a Lease is its expiry: this run saw it stand still for longer than its
// leaseDurationSeconds (lease.ts, LeaseObservations): its run stopped renewing it, so it died. It
// is deleted with the resourceVersion this run saw: a renewal that landed meanwhile wins.
import { interruptible, type Clock } from '../clock.js';
import { KubectlError } from '../errors.js';
import type { Reporter } from '../model/events.js';
import { describeObject, objectKey, type KubeObject, type ObjectRef } from '../objects/model.js';
import { HeldLeases, LEASE_TYPE, removeExpired, type HeldLeaseOptions, type LeaseKubectl } from './held-leases.js';
import { holderOfAnnotations, probeHolder, type HolderProbe } from './holder.js';
import { journalName } from './journal.js';
import {
  claimsOf,
  goesBefore,
  heldOf,
  JOURNAL_NAMESPACE_ANNOTATION,
  leaseHolder,
  LeaseObservations,
  LEASE_SELECTOR,
  ticketOf,
} from './lease.js';
import { refusedBecause } from './store.js';

export { HeldLeases, releaseLeftLeases } from './held-leases.js';

export interface LeaseOptions extends HeldLeaseOptions {
  home: string;
  lockTimeoutMs: number;
}

export interface LeaseDeps {
  /**
   * Times the waits for other runs (they end at once when `signal` aborts) and the renewals (they
   * do not: a cancelled run still holds its objects while it restores them). A clock whose sleeps
   * end at once renews without pause: unit tests use ManualClock.
   */
  clock: Clock;
  reporter: Reporter;
  signal?: AbortSignal;
  /** [0, 1): the jitter of the waits; Math.random by default. */
  random?: () => number;
  /** Whether a Lease's holder process still runs (holder.ts); probeHolder by default. */
  probe?: HolderProbe;
}

/** An object of this run that another run's Lease goes before. */
interface Blocked {
  ref: ObjectRef;
  holder: string;
  ticket: number | undefined;
}

/** What one look at the run's namespaces saw. */
interface Look {
  blocked: Blocked[];
  /** Namespaces where nothing goes before this run: with a ticket, they stay clear. */
  clear: string[];
  highestTicket: number;
}

/**
 * Takes the run's Leases, waiting up to lockTimeoutMs while runs that came before it hold or want
 * any of its objects. On timeout: exit 2 naming the holder, none of its Leases left.
 */
export async function acquireLeases(
  kubectl: LeaseKubectl,
  refs: readonly ObjectRef[],
  options: LeaseOptions,
  deps: LeaseDeps,
): Promise<HeldLeases> {
  const claims = claimsOf(refs, options.home);
  const observations = new LeaseObservations();
  const waits = interruptible(deps.clock, deps.signal);
  const random = deps.random ?? Math.random;
  const probe = deps.probe ?? probeHolder;
  const startedAt = deps.clock.now();
  const reported = new Set<string>();
  let lastHolders = '';
  let unchanged = 0;
  const leases = await HeldLeases.create(kubectl, claims, options, deps);
  try {
    let pending = leases.namespaces;
    let look = await lookAt(
      kubectl,
      pending,
      claims,
      observations,
      { ...options, ticket: undefined },
      deps.clock,
      probe,
    );
    if (look.blocked.length === 0) return leases;
    await leases.takeTicket(look.highestTicket + 1);
    for (;;) {
      const waited = deps.clock.now() - startedAt;
      if (waited >= options.lockTimeoutMs || deps.signal?.aborted) throw lockTimeout(look.blocked, options);
      for (const { ref, holder } of look.blocked) {
        const said = `${objectKey(ref)} ${holder}`;
        if (reported.has(said)) continue;
        reported.add(said);
        deps.reporter.emit({ kind: 'lock-wait', object: ref, holder });
      }
      const holders = [...new Set(look.blocked.map(({ holder }) => holder))].sort().join(' ');
      unchanged = holders === lastHolders ? unchanged + 1 : 0;
      lastHolders = holders;
      await waits.sleep(Math.min(options.lockTimeoutMs - waited, pollMs(look.blocked, unchanged, random)));
      if (deps.signal?.aborted) throw lockTimeout(look.blocked, options);
      look = await lookAt(
        kubectl,
        pending,
        claims,
        observations,
        { ...options, ticket: leases.ticket },
        deps.clock,
        probe,
      );
      if (look.blocked.length === 0) return leases;
      // A namespace clear in a look made with the ticket stays clear: whoever comes later sees the
      // ticket and queues behind it. (Not so before the ticket was written.)
      pending = pending.filter((namespace) => !look.clear.includes(namespace));
    }
  } catch (error) {
    // The run ends here (a signal, the timeout, a refusal): its deletes must land, not be
    // stopped with the reads a signal stops.
    kubectl.stopCancelling();
    await leases.release();
    throw error;
  }
}

/** Lists the namespaces' kguard Leases: which go before this run on its objects; expired ones are removed. */
async function lookAt(
  kubectl: LeaseKubectl,
  namespaces: readonly string[],
  claims: ReadonlyMap<string, ReadonlyMap<string, ObjectRef>>,
  observations: LeaseObservations,
  mine: LeaseOptions & { ticket: number | undefined },
  clock: Clock,
  probe: HolderProbe,
): Promise<Look> {
  const listed = await Promise.all(
    namespaces.map(async (namespace) => ({ namespace, leases: await listLeases(kubectl, namespace) })),
  );
  const look: Look = { blocked: [], clear: [], highestTicket: 0 };
  for (const { namespace, leases } of listed) {
    let clear = true;
    for (const lease of leases) {
      const holder = leaseHolder(lease);
      if (holder === mine.runId) continue;
      const now = clock.now();
      observations.see(lease, now);
      const held = heldOf(lease, claims.get(namespace) ?? new Map());
      const gone = observations.expired(lease, now) || (await deadWithoutJournal(kubectl, lease, probe));
      if (gone && (await removeExpired(kubectl, lease, mine.deadlineMs))) continue;
      look.highestTicket = Math.max(look.highestTicket, ticketOf(lease) ?? 0);
      if (held.length === 0 || !goesBefore(lease, mine)) continue;
      clear = false;
      look.blocked.push(...held.map((ref) => ({ ref, holder, ticket: ticketOf(lease) })));
    }
    if (clear) look.clear.push(namespace);
  }
  return look;
}

/**
 * A Lease whose holder ran on this machine, has ended, and left no journal: killed while taking
 * its Leases or right at its end. Nothing of it is left to restore, so its Leases need not be
 * waited out (a dead holder with a journal is: its objects may be half-applied until
 * `kguard rollback` restores them).
 */
async function deadWithoutJournal(kubectl: LeaseKubectl, lease: KubeObject, probe: HolderProbe): Promise<boolean> {
  const holder = holderOfAnnotations(lease.metadata.annotations);
  if (!holder || probe(holder) !== 'gone') return false;
  const namespace = lease.metadata.annotations?.[JOURNAL_NAMESPACE_ANNOTATION] ?? lease.metadata.namespace ?? '';
  const journal = await kubectl.getObject('secrets', namespace, journalName(leaseHolder(lease))).catch(() => null);
  return journal === undefined;
}

async function listLeases(kubectl: LeaseKubectl, namespace: string): Promise<KubeObject[]> {
  const listed = await kubectl.listCollection({ type: LEASE_TYPE, namespace, labelSelector: LEASE_SELECTOR });
  if (listed.ok) return listed.items;
  throw refusedBecause(
    { message: listed.message, stderr: /forbidden/i.test(listed.message) ? '(Forbidden)' : '' },
    'leases',
    namespace,
  );
}

/** Names the run most likely in: one without a ticket (it went straight in), else the first in line. */
function lockTimeout(blocked: readonly Blocked[], options: LeaseOptions): KubectlError {
  const first = [...blocked].sort((left, right) => (left.ticket ?? 0) - (right.ticket ?? 0))[0]!;
  const more = new Set(blocked.map(({ ref }) => objectKey(ref))).size - 1;
  return new KubectlError(
    `${describeObject(first.ref)} is held by another kguard run (${first.holder})${more > 0 ? ` with ${more} more object(s)` : ''}; ` +
      `waited ${Math.round(options.lockTimeoutMs / 1000)}s (--lock-timeout). Next: let that run finish (kguard status shows it), then run again; nothing was applied.`,
  );
}

/**
 * How long until the next look: about 250 ms per run ahead, so the next in line notices a release
 * soon and the back of a long line reads little; doubled each time nothing ahead has moved (a
 * long rollout is not asked after four times a second), at most 4 s. A random ±25 % keeps runs
 * that look together from staying in step.
 */
function pollMs(blocked: readonly Blocked[], unchanged: number, random: () => number): number {
  const ahead = new Set(blocked.map(({ holder }) => holder)).size;
  return Math.min(4000, 250 * ahead * 2 ** Math.min(unchanged, 4)) * (0.75 + random() / 2);
}
