// Writes the run journal and the object leases (see journal.ts) with kubectl's raw, conditional
// writes. Every refusal that matters is turned into a message naming the RBAC rule to add.
import { randomBytes } from 'node:crypto';
import type { Clock } from '../clock.js';
import { JournalTooLargeError, KubectlError } from '../errors.js';
import type { Kubectl, WriteResult } from '../kubectl/types.js';
import { describeObject, objectKey, type KubeObject, type ObjectRef } from '../objects/model.js';
import type { Reporter } from '../model/events.js';
import { journalName, journalSecret, leaseExpired, leaseFor, leaseHolder, leaseName, leaseNamespace, newRunId, readJournalSecret, JOURNAL_TTL_MS, JOURNAL_VERSION, type Journal } from './journal.js';
import { JOURNAL_LABEL } from './labels.js';

type JournalKubectl = Pick<Kubectl, 'create' | 'replace' | 'deleteExact' | 'getObject' | 'listJournals'>;

const secretsPath = (namespace: string) => `/api/v1/namespaces/${encodeURIComponent(namespace)}/secrets`;
const leasesPath = (namespace: string) => `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(namespace)}/leases`;

export function makeRunId(): string {
  return newRunId(new Date(), randomBytes(4).toString('hex'));
}

/** The rule a Role needs for kguard's journal and leases, for the messages below. */
export function rbacRule(what: 'secrets' | 'leases', namespace: string): string {
  const group = what === 'leases' ? '"coordination.k8s.io"' : '""';
  return `a Role in namespace ${namespace} with: apiGroups: [${group}], resources: ["${what}"], verbs: ["create", "get", "update", "delete"]`;
}

function refusedBecause(result: Extract<WriteResult, { ok: false }>, what: 'secrets' | 'leases', namespace: string): KubectlError {
  const forbidden = /\(Forbidden\)/.test(result.stderr);
  const next = forbidden
    ? `grant ${rbacRule(what, namespace)}, or run with --no-journal (then a killed run cannot be rolled back by kguard rollback, and two runs on the same objects are not kept apart)`
    : 'check that the API server answers and run kguard again';
  const purpose = what === 'secrets' ? 'write its run journal (a Secret)' : 'take a lease on the objects it will change';
  return new KubectlError(`kguard could not ${purpose} in namespace ${namespace}: ${result.message}. Next: ${next}; nothing was applied.`, undefined, result.stderr);
}

/** The journal of one run, in the cluster from before the apply until the run ends cleanly. */
export class RunJournal {
  private resourceVersion: string | undefined;
  /** Known from the create: the end deletes exactly this Secret without reading it first. */
  private uid: string | undefined;

  private constructor(
    private readonly kubectl: JournalKubectl,
    private journal: Journal,
    private readonly deadlineMs: number,
  ) {}

  get runId(): string {
    return this.journal.runId;
  }

  get namespace(): string {
    return this.journal.namespace;
  }

  static async start(kubectl: JournalKubectl, wanted: Journal, deadlineMs: number): Promise<RunJournal> {
    let journal = wanted;
    let written = await kubectl.create(journalSecret(journal), secretsPath(journal.namespace), deadlineMs);
    if (!written.ok && written.notFound && journal.namespace !== 'default') {
      // The apply creates its namespace: the journal waits in "default" meanwhile.
      journal = { ...journal, namespace: 'default' };
      written = await kubectl.create(journalSecret(journal), secretsPath(journal.namespace), deadlineMs);
    }
    if (!written.ok) throw refusedBecause(written, 'secrets', journal.namespace);
    const store = new RunJournal(kubectl, journal, deadlineMs);
    store.resourceVersion = written.object?.metadata.resourceVersion;
    store.uid = written.object?.metadata.uid;
    return store;
  }

  /** Records progress; a failure here is reported by the caller and does not stop the run. */
  async update(change: Partial<Pick<Journal, 'state' | 'objects'>>): Promise<void> {
    this.journal = { ...this.journal, ...change };
    const path = `${secretsPath(this.journal.namespace)}/${journalName(this.journal.runId)}`;
    const written = await this.kubectl.replace(updatedSecret(this.journal, this.resourceVersion), path, this.deadlineMs);
    if (!written.ok) throw new Error(`kguard could not update its run journal: ${written.message}`);
    this.resourceVersion = written.object?.metadata.resourceVersion;
  }

  /** The run ended cleanly: nothing is left to roll back. */
  async finish(): Promise<void> {
    if (!this.uid) return removeJournal(this.kubectl, this.journal.namespace, this.journal.runId, this.deadlineMs);
    const path = `${secretsPath(this.journal.namespace)}/${journalName(this.journal.runId)}`;
    const deleted = await this.kubectl.deleteExact(path, { uid: this.uid }, this.deadlineMs);
    if (!deleted.ok && !deleted.notFound) throw new Error(`kguard could not delete its run journal: ${deleted.message}`);
  }
}

/** After the apply, a journal too big says so as a failed update does: the run goes on. */
function updatedSecret(journal: Journal, resourceVersion: string | undefined): KubeObject {
  try {
    return journalSecret(journal, resourceVersion);
  } catch (error) {
    if (!(error instanceof JournalTooLargeError)) throw error;
    throw new Error(`kguard could not update its run journal: it would be ${Math.ceil(error.bytes / 1024)} KiB, more than the ${Math.ceil(error.limitBytes / 1024)} KiB it may be`);
  }
}

export async function removeJournal(kubectl: JournalKubectl, namespace: string, runId: string, deadlineMs: number): Promise<void> {
  const path = `${secretsPath(namespace)}/${journalName(runId)}`;
  const live = await kubectl.getObject('secrets', namespace, journalName(runId));
  if (!live) return;
  const deleted = await kubectl.deleteExact(path, { uid: live.metadata.uid ?? '' }, deadlineMs);
  if (!deleted.ok && !deleted.notFound) throw new Error(`kguard could not delete its run journal: ${deleted.message}`);
}

export interface JournalListing {
  journal: Journal;
  expired: boolean;
}

/** Every journal kguard can see: in one namespace, or in all of them. */
export async function listJournals(kubectl: JournalKubectl, namespace: string | undefined): Promise<JournalListing[]> {
  const secrets = await kubectl.listJournals(namespace, `${JOURNAL_LABEL}=${JOURNAL_VERSION}`);
  const now = Date.now();
  return secrets
    .flatMap((secret) => {
      try {
        return [readJournalSecret(secret)];
      } catch {
        return [];
      }
    })
    .map((journal) => ({ journal, expired: Date.parse(journal.expiresAt) < now }))
    .sort((left, right) => left.journal.startedAt.localeCompare(right.journal.startedAt));
}

/** Old journals expire: a run deletes the expired ones it can see in its own namespace. */
export async function deleteExpiredJournals(kubectl: JournalKubectl, namespace: string, deadlineMs: number): Promise<void> {
  const journals = await listJournals(kubectl, namespace).catch(() => []);
  await Promise.all(
    journals.filter(({ expired }) => expired).map(({ journal }) => removeJournal(kubectl, journal.namespace, journal.runId, deadlineMs).catch(() => undefined)),
  );
}

export function journalExpiry(now: Date): string {
  return new Date(now.getTime() + JOURNAL_TTL_MS).toISOString();
}

// --- Leases ---------------------------------------------------------------------------------

export interface HeldLeases {
  release(): Promise<void>;
}

/**
 * Takes one Lease per object, waiting up to lockTimeoutMs for Leases another live run holds;
 * Leases of a run that died (expired) are taken over. On timeout: exit 2 naming the holder.
 */
export async function acquireLeases(
  kubectl: JournalKubectl,
  refs: readonly ObjectRef[],
  options: { home: string; runId: string; durationSeconds: number; lockTimeoutMs: number; deadlineMs: number },
  deps: { clock: Clock; reporter: Reporter; signal?: AbortSignal },
): Promise<HeldLeases> {
  const held = new Map<string, KubeObject>();
  const release = async () => {
    await Promise.all(
      [...held.values()].map((lease) =>
        kubectl
          .deleteExact(`${leasesPath(lease.metadata.namespace ?? '')}/${lease.metadata.name}`, { uid: lease.metadata.uid ?? '' }, options.deadlineMs)
          .catch(() => undefined),
      ),
    );
    held.clear();
  };
  const startedAt = deps.clock.now();
  const reported = new Set<string>();
  let pending = [...refs];
  try {
    for (;;) {
      const blocked: Array<{ ref: ObjectRef; holder: string }> = [];
      await inParallel(pending, 8, async (ref) => {
        const outcome = await takeLease(kubectl, ref, options);
        if ('lease' in outcome) held.set(objectKey(ref), outcome.lease);
        else if ('holder' in outcome) blocked.push({ ref, holder: outcome.holder });
      });
      if (blocked.length === 0) return { release };
      if (deps.clock.now() - startedAt >= options.lockTimeoutMs || deps.signal?.aborted) {
        const first = blocked[0]!;
        throw new KubectlError(
          `${describeObject(first.ref)} is held by another kguard run (${first.holder})${blocked.length > 1 ? ` with ${blocked.length - 1} more object(s)` : ''}; ` +
            `waited ${Math.round(options.lockTimeoutMs / 1000)}s (--lock-timeout). Next: let that run finish (kguard status shows it), then run again; nothing was applied.`,
        );
      }
      for (const { ref, holder } of blocked) {
        if (reported.has(objectKey(ref))) continue;
        reported.add(objectKey(ref));
        deps.reporter.emit({ kind: 'lock-wait', object: ref, holder });
      }
      pending = blocked.map(({ ref }) => ref);
      await deps.clock.sleep(1000);
    }
  } catch (error) {
    await release();
    throw error;
  }
}

async function takeLease(
  kubectl: JournalKubectl,
  ref: ObjectRef,
  options: { home: string; runId: string; durationSeconds: number; deadlineMs: number },
): Promise<{ lease: KubeObject } | { holder: string } | { skipped: true }> {
  const namespace = leaseNamespace(ref, options.home);
  const wanted = leaseFor(ref, options.home, options.runId, options.durationSeconds, new Date());
  const created = await kubectl.create(wanted, leasesPath(namespace), options.deadlineMs);
  if (created.ok && created.object) return { lease: created.object };
  if (created.ok) return { lease: wanted };
  // A namespace that does not exist yet (this apply creates it) holds no object to protect:
  // there is no "before" another run could corrupt.
  if (created.notFound) return { skipped: true };
  if (!/\(AlreadyExists\)/.test(created.stderr)) throw refusedBecause(created, 'leases', namespace);
  const live = await kubectl.getObject('leases.v1.coordination.k8s.io', namespace, leaseName(ref));
  if (!live) return { holder: 'a run that just finished' };
  if (leaseHolder(live) === options.runId) return { lease: live };
  if (!leaseExpired(live, new Date())) return { holder: leaseHolder(live) };
  // The holder died: take its Lease over, conditionally, so two runs cannot both take it.
  const takeover = { ...wanted, metadata: { ...wanted.metadata, resourceVersion: live.metadata.resourceVersion } };
  const replaced = await kubectl.replace(takeover, `${leasesPath(namespace)}/${leaseName(ref)}`, options.deadlineMs);
  if (replaced.ok && replaced.object) return { lease: replaced.object };
  return { holder: leaseHolder(live) };
}

async function inParallel<T>(items: readonly T[], limit: number, each: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const errors: unknown[] = [];
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const item = items[next++]!;
        await each(item).catch((error: unknown) => errors.push(error));
      }
    }),
  );
  if (errors.length > 0) throw errors[0];
}
