// A run's Leases from their creation to their release (leases.ts decides when it may go in):
// renewed every third of their duration, given a ticket when the run must wait, and deleted only
// while this run still holds them. A Lease that cannot be deleted is said, with the command.
import type { Clock } from '../clock.js';
import { KubectlError } from '../errors.js';
import type { Kubectl, WriteResult } from '../kubectl/types.js';
import type { Reporter } from '../model/events.js';
import type { KubeObject, ObjectRef } from '../objects/model.js';
import type { RunHolder } from './holder.js';
import { RUN_LABEL } from './labels.js';
import { leaseHolder, LEASE_SELECTOR, renewed, runLeases, withTicket } from './lease.js';
import { refusedBecause } from './store.js';

export type LeaseKubectl = Pick<
  Kubectl,
  'create' | 'replace' | 'deleteExact' | 'getObject' | 'listCollection' | 'commandLine' | 'stopCancelling'
>;

/** kubectl's name for Leases (kubectl/resources.ts knows its REST path). */
export const LEASE_TYPE = 'leases.coordination.k8s.io';
const leasesPath = (namespace: string) =>
  `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(namespace)}/leases`;
const leasePath = (lease: KubeObject) => `${leasesPath(lease.metadata.namespace ?? '')}/${lease.metadata.name}`;

export interface HeldLeaseOptions {
  runId: string;
  /** The process that holds them, written on each Lease (holder.ts). */
  holder?: RunHolder;
  /** Where the run's journal goes, written on each Lease. */
  journalNamespace?: string;
  /** The name of its Leases (default: the run id); a run leasing more objects later (a phase read only then) takes Leases of another name. */
  nameBase?: string;
  /** Where its cluster-scoped objects are leased (--journal-namespace): a refusal there says the user may name another. */
  clusterNamespace?: string;
  durationSeconds: number;
  /** Deadline of each write. */
  deadlineMs: number;
}

export class HeldLeases {
  private readonly leases = new Map<string, KubeObject>();
  private readonly stopRenewing = new AbortController();
  private readonly renewing: Promise<void>;
  /** Writes to the run's own Leases, one at a time: each PUT carries the last resourceVersion. */
  private writes: Promise<unknown> = Promise.resolve();
  private released: Promise<void> | undefined;
  private placeInLine: number | undefined;

  private constructor(
    private readonly kubectl: LeaseKubectl,
    leases: readonly KubeObject[],
    private readonly options: HeldLeaseOptions,
    private readonly deps: { clock: Clock; reporter: Reporter },
  ) {
    for (const lease of leases) this.leases.set(leasePath(lease), lease);
    this.renewing = this.renewEveryThird();
  }

  /**
   * Creates the run's Lease(s) in every namespace of `claims` that exists; a namespace that does
   * not exist yet (this apply creates it) holds nothing another run could corrupt and gets none.
   * On any refusal, the Leases already created are deleted and the refusal is thrown.
   */
  static async create(
    kubectl: LeaseKubectl,
    claims: ReadonlyMap<string, ReadonlyMap<string, ObjectRef>>,
    options: HeldLeaseOptions,
    deps: { clock: Clock; reporter: Reporter },
  ): Promise<HeldLeases> {
    const now = new Date();
    const created: KubeObject[] = [];
    const outcomes = await Promise.allSettled(
      [...claims].map(async ([namespace, keys]) => {
        for (const lease of runLeases(
          options.runId,
          namespace,
          [...keys.keys()],
          options.durationSeconds,
          now,
          options,
        )) {
          const taken = await createOne(kubectl, lease, options);
          if (!taken) return;
          created.push(taken);
        }
      }),
    );
    const held = new HeldLeases(kubectl, created, options, deps);
    const refused = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
    if (refused) {
      // The run ends here: its deletes must land, not be stopped with the reads a signal stops.
      kubectl.stopCancelling();
      await held.release();
      throw refused.reason;
    }
    return held;
  }

  /** The Leases held now, as last written. */
  get held(): KubeObject[] {
    return [...this.leases.values()];
  }

  get namespaces(): string[] {
    return [...new Set(this.held.map((lease) => lease.metadata.namespace ?? ''))];
  }

  get ticket(): number | undefined {
    return this.placeInLine;
  }

  /** Writes the run's ticket on each of its Leases (conditional PUTs). */
  async takeTicket(ticket: number): Promise<void> {
    this.placeInLine = ticket;
    await Promise.all(
      this.held.map(async (lease) => {
        const outcome = await this.rewrite(lease, (current) => withTicket(current, ticket));
        if (outcome.written) return;
        const what = `its Lease ${lease.metadata.name} (namespace ${lease.metadata.namespace})`;
        throw new KubectlError(
          'lost' in outcome
            ? `kguard lost ${what} while it waited: it was ${outcome.lost}. Next: run kguard again; nothing was applied.`
            : `kguard could not write its place in line on ${what}: ${outcome.failed}. Next: check that the API server answers and run kguard again; nothing was applied.`,
        );
      }),
    );
  }

  /** Writes `annotations` on each Lease this run holds (a stop answer, stop.ts); one that cannot be written is left as it is. */
  async annotate(annotations: Record<string, string>): Promise<void> {
    await Promise.all(
      this.held.map((lease) =>
        this.rewrite(lease, (current) => ({
          ...current,
          metadata: { ...current.metadata, annotations: { ...current.metadata.annotations, ...annotations } },
        })),
      ),
    );
  }

  /**
   * Deletes each Lease this run still holds, all at once (kubectl's pool bounds the processes).
   * One that cannot be deleted is said with the command that deletes it. Safe to call twice.
   */
  release(): Promise<void> {
    this.released ??= (async () => {
      this.stopRenewing.abort();
      await Promise.all([this.renewing, this.writes.catch(() => undefined)]);
      const leases = this.held;
      this.leases.clear();
      await Promise.all(
        leases.map(async (lease) => {
          const failure = await letGo(this.kubectl, lease, this.options);
          if (failure) reportLeftLease(this.kubectl, lease, failure, this.deps.reporter);
        }),
      );
    })();
    return this.released;
  }

  private async renewEveryThird(): Promise<void> {
    const periodMs = (this.options.durationSeconds * 1000) / 3;
    while (this.leases.size > 0) {
      await this.deps.clock.sleep(periodMs, this.stopRenewing.signal);
      if (this.stopRenewing.signal.aborted) return;
      await Promise.all(
        this.held.map(async (lease) => {
          const outcome = await this.rewrite(lease, (current) => renewed(current, new Date()));
          if (!('lost' in outcome)) return;
          this.deps.reporter.emit({
            kind: 'journal-warning',
            message: `kguard's Lease ${lease.metadata.name} (namespace ${lease.metadata.namespace}) was ${outcome.lost} while this run held it: another kguard run may change the same objects now`,
          });
        }),
      );
    }
  }

  /**
   * A conditional PUT of one of the run's Leases. On a 409 Conflict it reads the Lease once: still
   * this run's (someone added a label), the change is written on top of what was read; another
   * run's or gone, the Lease is lost and no longer this run's to renew or delete. A failure that
   * says nothing (the server did not answer) leaves it as it was: a renewal is tried again next time.
   */
  private rewrite(
    lease: KubeObject,
    change: (current: KubeObject) => KubeObject,
  ): Promise<{ written: true } | { written: false; lost: string } | { written: false; failed: string }> {
    const id = leasePath(lease);
    const write = async () => {
      const held = this.leases.get(id);
      if (!held) return { written: false as const, failed: 'this run no longer holds it' };
      let current: KubeObject = held;
      for (let attempt = 0; ; attempt += 1) {
        const written: WriteResult = await this.kubectl
          .replace(change(current), id, this.options.deadlineMs)
          .catch(failedWrite);
        if (written.ok) {
          this.leases.set(id, written.object ?? change(current));
          return { written: true as const };
        }
        if ((!written.conflict && !written.notFound) || attempt > 0)
          return { written: false as const, failed: written.message };
        const live: KubeObject | undefined | Error = written.notFound
          ? undefined
          : await this.kubectl
              .getObject(LEASE_TYPE, lease.metadata.namespace ?? '', lease.metadata.name)
              .catch((error: unknown) => new Error(messageOf(error)));
        if (live instanceof Error) return { written: false as const, failed: live.message };
        if (!live || live.metadata.uid !== lease.metadata.uid || leaseHolder(live) !== this.options.runId) {
          this.leases.delete(id);
          return { written: false as const, lost: live ? `taken over by ${leaseHolder(live)}` : 'deleted' };
        }
        current = live;
      }
    };
    const next = this.writes.then(write);
    this.writes = next.catch(() => undefined);
    return next;
  }
}

/**
 * The Leases a run left behind (it was killed): those it still holds in `namespaces`, deleted
 * conditionally; one that cannot be deleted is said with the command that does it.
 */
export async function releaseLeftLeases(
  kubectl: LeaseKubectl,
  runId: string,
  namespaces: Iterable<string>,
  deadlineMs: number,
  reporter: Reporter,
): Promise<void> {
  await Promise.all(
    [...new Set(namespaces)].map(async (namespace) => {
      const listed = await kubectl
        .listCollection({ type: LEASE_TYPE, namespace, labelSelector: `${LEASE_SELECTOR},${RUN_LABEL}=${runId}` })
        .catch(() => undefined);
      if (!listed?.ok) return;
      for (const lease of listed.items.filter((item) => leaseHolder(item) === runId)) {
        const failure = await letGo(kubectl, lease, { runId, deadlineMs });
        if (failure) reportLeftLease(kubectl, lease, failure, reporter);
      }
    }),
  );
}

/** Another run's Lease that stopped being renewed: deleted exactly as this run saw it, so a late renewal wins. */
export async function removeExpired(kubectl: LeaseKubectl, lease: KubeObject, deadlineMs: number): Promise<boolean> {
  const preconditions = { uid: lease.metadata.uid ?? '', resourceVersion: lease.metadata.resourceVersion };
  const deleted = await kubectl.deleteExact(leasePath(lease), preconditions, deadlineMs).catch(failedWrite);
  return deleted.ok || deleted.notFound;
}

/** The Lease as created; undefined when its namespace does not exist yet. */
async function createOne(
  kubectl: LeaseKubectl,
  lease: KubeObject,
  options: HeldLeaseOptions,
): Promise<KubeObject | undefined> {
  const namespace = lease.metadata.namespace ?? '';
  const created = await kubectl.create(lease, leasesPath(namespace), options.deadlineMs);
  if (created.ok) return created.object ?? (await ownLease(kubectl, lease, options.runId));
  if (created.notFound) return undefined;
  // The run's own Lease, from a create that landed although kubectl did not hear the answer.
  const own = /\(AlreadyExists\)/.test(created.stderr) ? await ownLease(kubectl, lease, options.runId) : undefined;
  if (own) return own;
  throw refusedBecause(created, 'leases', namespace, namespace === options.clusterNamespace);
}

async function ownLease(kubectl: LeaseKubectl, lease: KubeObject, runId: string): Promise<KubeObject | undefined> {
  const live = await kubectl.getObject(LEASE_TYPE, lease.metadata.namespace ?? '', lease.metadata.name);
  return live && leaseHolder(live) === runId ? live : undefined;
}

/**
 * Deletes a Lease only while this run holds it: preconditions uid and resourceVersion. A 409
 * Conflict (it moved) reads it once: still this run's, it is deleted as read; gone or another
 * run's (taken over), it is left alone. Returns why it could not be deleted.
 */
async function letGo(
  kubectl: LeaseKubectl,
  lease: KubeObject,
  options: Pick<HeldLeaseOptions, 'runId' | 'deadlineMs'>,
): Promise<string | undefined> {
  let current = lease;
  for (let attempt = 0; ; attempt += 1) {
    const preconditions = { uid: current.metadata.uid ?? '', resourceVersion: current.metadata.resourceVersion };
    const deleted = await kubectl.deleteExact(leasePath(current), preconditions, options.deadlineMs).catch(failedWrite);
    if (deleted.ok || deleted.notFound) return undefined;
    if (!deleted.conflict || attempt > 0) return deleted.message;
    const live = await kubectl
      .getObject(LEASE_TYPE, current.metadata.namespace ?? '', current.metadata.name)
      .catch((error: unknown) => messageOf(error));
    if (typeof live === 'string') return live;
    if (!live || live.metadata.uid !== lease.metadata.uid || leaseHolder(live) !== options.runId) return undefined;
    current = live;
  }
}

function reportLeftLease(
  kubectl: Pick<LeaseKubectl, 'commandLine'>,
  lease: KubeObject,
  failure: string,
  reporter: Reporter,
): void {
  const { name, namespace = '' } = lease.metadata;
  const seconds = (lease as { spec?: { leaseDurationSeconds?: number } }).spec?.leaseDurationSeconds ?? 0;
  reporter.emit({
    kind: 'journal-warning',
    message:
      `kguard could not delete its Lease ${name} in namespace ${namespace} (${failure}): other kguard runs on the same objects wait for it ` +
      `until it is deleted, or until they have seen it unrenewed for ${seconds}s. Delete it with`,
    commands: [kubectl.commandLine(['delete', 'lease', name, '-n', namespace])],
  });
}

function failedWrite(error: unknown): WriteResult {
  return { ok: false, conflict: false, notFound: false, message: messageOf(error), stderr: '' };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
