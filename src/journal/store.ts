// Writes the run journal (see journal.ts) with kubectl's raw, conditional writes. Every refusal
// that matters, of the journal or of the leases (leases.ts), is turned into a message naming the
// RBAC rule to add.
import { randomBytes } from 'node:crypto';
import { JournalTooLargeError, KubectlError } from '../errors.js';
import type { Kubectl, WriteResult } from '../kubectl/types.js';
import type { KubeObject } from '../objects/model.js';
import { journalName, journalSecret, newRunId, readJournalSecret, JOURNAL_TTL_MS, JOURNAL_VERSION, type Journal } from './journal.js';
import { JOURNAL_LABEL } from './labels.js';

type JournalKubectl = Pick<Kubectl, 'create' | 'replace' | 'deleteExact' | 'getObject' | 'listLabelled'>;

const secretsPath = (namespace: string) => `/api/v1/namespaces/${encodeURIComponent(namespace)}/secrets`;

export function makeRunId(): string {
  return newRunId(new Date(), randomBytes(4).toString('hex'));
}

/** The rule a Role needs for kguard's journal and leases, for the messages below. */
export function rbacRule(what: 'secrets' | 'leases', namespace: string): string {
  // A run lists the leases of each namespace it touches (leases.ts): "list" is needed there.
  const [group, verbs] = what === 'leases' ? ['"coordination.k8s.io"', '"create", "get", "list", "update", "delete"'] : ['""', '"create", "get", "update", "delete"'];
  return `a Role in namespace ${namespace} with: apiGroups: [${group}], resources: ["${what}"], verbs: [${verbs}]`;
}

export function refusedBecause(result: Pick<Extract<WriteResult, { ok: false }>, 'message' | 'stderr'>, what: 'secrets' | 'leases', namespace: string): KubectlError {
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

  /**
   * The run ended cleanly: nothing is left to roll back. A journal that cannot be deleted is marked
   * finished instead, so that `kguard status` never offers to roll back a healthy run and
   * `kguard rollback` refuses it.
   */
  async finish(): Promise<void> {
    const path = `${secretsPath(this.journal.namespace)}/${journalName(this.journal.runId)}`;
    const deleted = this.uid
      ? await this.kubectl.deleteExact(path, { uid: this.uid }, this.deadlineMs)
      : await removeJournal(this.kubectl, this.journal.namespace, this.journal.runId, this.deadlineMs).then(
          () => ({ ok: true as const }),
          (error: unknown) => ({ ok: false as const, notFound: false, message: error instanceof Error ? error.message : String(error) }),
        );
    if (deleted.ok || deleted.notFound) return;
    const marked = await this.update({ state: 'finished' }).then(
      () => true,
      () => false,
    );
    const name = `secret/${journalName(this.journal.runId)} (namespace ${this.journal.namespace})`;
    throw new Error(
      marked
        ? `kguard could not delete its run journal ${name}: ${deleted.message}. It is marked finished, so kguard rollback leaves the run alone; remove it with`
        : `kguard could not delete its run journal ${name}, nor mark it finished: ${deleted.message}. Do not roll this run back: it ended. Remove the journal with`,
    );
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
  const secrets = await kubectl.listLabelled('secrets', namespace, `${JOURNAL_LABEL}=${JOURNAL_VERSION}`);
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
