// Writes the run journal (see journal.ts), as the Secrets pieces.ts decides (the copies of each
// namespace's objects in that namespace, as many Secrets as they need), with kubectl's raw,
// conditional writes, and reads it back whole. Every refusal that matters, of the journal or of
// the leases (leases.ts), is turned into a message naming the RBAC rule to add.
import { randomBytes } from 'node:crypto';
import { JournalTooLargeError, KubectlError } from '../errors.js';
import type { Kubectl, WriteResult } from '../kubectl/types.js';
import {
  journalName,
  journalSecret,
  newFleetRunId,
  newRunId,
  readJournalSecret,
  JOURNAL_TTL_MS,
  JOURNAL_VERSION,
  type Journal,
} from './journal.js';
import { JOURNAL_LABEL, RUN_LABEL } from './labels.js';
import { journalPieces, mergePieces, type JournalPiece, type JournalPlacement } from './pieces.js';

type JournalKubectl = Pick<Kubectl, 'create' | 'replace' | 'deleteExact' | 'getObject' | 'listLabelled'>;

const secretsPath = (namespace: string) => `/api/v1/namespaces/${encodeURIComponent(namespace)}/secrets`;

export function makeRunId(): string {
  return newRunId(new Date(), randomBytes(4).toString('hex'));
}

export function makeFleetRunId(): string {
  return newFleetRunId(new Date(), randomBytes(4).toString('hex'));
}

/** The rule a Role needs for kguard's journal and leases, for the messages below. */
export function rbacRule(what: 'secrets' | 'leases', namespace: string): string {
  // A run lists the leases of each namespace it touches (leases.ts): "list" is needed there.
  const [group, verbs] =
    what === 'leases'
      ? ['"coordination.k8s.io"', '"create", "get", "list", "update", "delete"']
      : ['""', '"create", "get", "update", "delete"'];
  return `a Role in namespace ${namespace} with: apiGroups: [${group}], resources: ["${what}"], verbs: [${verbs}]`;
}

/**
 * `clusterScoped`: the namespace is the run's journal namespace for its cluster-scoped objects
 * (--journal-namespace, kube-system by default), which the user may name instead.
 */
export function refusedBecause(
  result: Pick<Extract<WriteResult, { ok: false }>, 'message' | 'stderr'> & { notFound?: boolean },
  what: 'secrets' | 'leases',
  namespace: string,
  clusterScoped = false,
): KubectlError {
  const forbidden = /\(Forbidden\)/.test(result.stderr);
  const elsewhere = clusterScoped
    ? `pass --journal-namespace NAMESPACE (one where you may write ${what}; kguard journals and leases cluster-scoped objects there), `
    : '';
  const next = forbidden
    ? `${elsewhere}grant ${rbacRule(what, namespace)}, or run with --no-journal (then a killed run cannot be rolled back by kguard rollback, and two runs on the same objects are not kept apart)`
    : clusterScoped && result.notFound
      ? `${elsewhere}or run with --no-journal`
      : 'check that the API server answers and run kguard again';
  const purpose =
    what === 'secrets' ? 'write its run journal (a Secret)' : 'take a lease on the objects it will change';
  const why = clusterScoped ? ` (the journal namespace of this apply's cluster-scoped objects)` : '';
  return new KubectlError(
    `kguard could not ${purpose} in namespace ${namespace}${why}: ${result.message}. Next: ${next}; nothing was applied.`,
    undefined,
    result.stderr,
  );
}

/** A journal Secret kguard wrote or read: deleted by uid. */
export interface JournalSecretRef {
  namespace: string;
  name: string;
  uid?: string;
}

/** The journal of one run, in the cluster from before the apply until the run ends cleanly. */
export class RunJournal {
  /** Its Secrets, by namespace/name: their uid (the end deletes exactly those) and last resourceVersion. */
  private readonly written = new Map<string, JournalSecretRef & { resourceVersion?: string }>();
  /** Updates one at a time: each PUT carries the resourceVersion the last one returned. */
  private writes: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly kubectl: JournalKubectl,
    private journal: Journal,
    private readonly placement: JournalPlacement,
    private readonly deadlineMs: number,
  ) {}

  get runId(): string {
    return this.journal.runId;
  }

  /** The run's home namespace: its first journal Secret is there (its Leases name it). */
  get namespace(): string {
    return this.journal.namespace;
  }

  /** Where its Secrets are: namespace → how many. */
  get pieces(): Record<string, number> {
    const pieces: Record<string, number> = {};
    for (const { namespace } of this.written.values()) pieces[namespace] = (pieces[namespace] ?? 0) + 1;
    return pieces;
  }

  /**
   * Writes every journal Secret of the run before its apply. Too big (one object's copy over a
   * Secret's limit): JournalTooLargeError, nothing written. A refused write: the Secrets already
   * written are deleted and the refusal names the rule to add.
   */
  static async start(
    kubectl: JournalKubectl,
    wanted: Journal,
    placement: JournalPlacement,
    deadlineMs: number,
  ): Promise<RunJournal> {
    const store = new RunJournal(
      kubectl,
      { ...wanted, clusterNamespace: placement.clusterNamespace },
      placement,
      deadlineMs,
    );
    const pieces = journalPieces(store.journal, placement);
    try {
      await store.write(pieces);
    } catch (error) {
      await store.removeAll().catch(() => undefined);
      throw error;
    }
    return store;
  }

  /** Records progress; a failure here is reported by the caller and does not stop the run. */
  update(change: Partial<Pick<Journal, 'state' | 'objects'>>): Promise<void> {
    const next = this.writes.then(async () => {
      this.journal = { ...this.journal, ...change };
      try {
        await this.write(journalPieces(this.journal, this.placement));
      } catch (error) {
        if (error instanceof JournalTooLargeError) {
          throw new Error(
            `kguard could not update its run journal: the copies of ${error.object ?? 'an object'} would be ${Math.ceil(error.bytes / 1024)} KiB compressed, more than the ${Math.ceil(error.limitBytes / 1024)} KiB a Secret may hold`,
          );
        }
        throw new Error(
          `kguard could not update its run journal: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    });
    this.writes = next.catch(() => undefined);
    return next;
  }

  /**
   * The run ended cleanly: nothing is left to restore. Its Secrets are deleted, the home one
   * last. Those that cannot be deleted are marked finished instead, so that `kguard status` never
   * offers to roll back a healthy run and `kguard rollback` refuses it.
   */
  async finish(): Promise<void> {
    await this.writes;
    const failures: string[] = [];
    const home = journalName(this.runId);
    const secrets = [...this.written.values()];
    const remove = async (secret: JournalSecretRef) => {
      const deleted = await this.kubectl.deleteExact(
        `${secretsPath(secret.namespace)}/${secret.name}`,
        { uid: secret.uid ?? '' },
        this.deadlineMs,
      );
      if (deleted.ok || deleted.notFound) this.written.delete(`${secret.namespace}/${secret.name}`);
      else failures.push(`secret/${secret.name} (namespace ${secret.namespace}): ${deleted.message}`);
    };
    await Promise.all(
      secrets.filter((secret) => !(secret.namespace === this.namespace && secret.name === home)).map(remove),
    );
    await Promise.all(
      secrets.filter((secret) => secret.namespace === this.namespace && secret.name === home).map(remove),
    );
    if (failures.length === 0) return;
    // The ones left say "finished": only those are written again.
    this.journal = { ...this.journal, state: 'finished' };
    const left = journalPieces(this.journal, this.placement).filter((piece) =>
      this.written.has(keyOf(piece, this.runId)),
    );
    const marked = await this.write(left, false).then(
      () => true,
      () => false,
    );
    const names = failures.join('; ');
    throw new Error(
      marked
        ? `kguard could not delete its run journal ${names}. It is marked finished, so kguard rollback leaves the run alone; remove it with`
        : `kguard could not delete its run journal ${names}, nor mark it finished. Do not roll this run back: it ended. Remove the journal with`,
    );
  }

  /**
   * Writes `pieces`: the home one first (a run that dies while it writes the others is still
   * found by its Leases), then the rest at once; with `prune`, Secrets no longer needed (the
   * journal shrank) are deleted.
   */
  private async write(pieces: readonly JournalPiece[], prune = true): Promise<void> {
    const isHome = (piece: JournalPiece) => piece.namespace === this.namespace && piece.index === 0;
    await Promise.all(pieces.filter(isHome).map((piece) => this.writeOne(piece)));
    await Promise.all(pieces.filter((piece) => !isHome(piece)).map((piece) => this.writeOne(piece)));
    if (!prune) return;
    const wanted = new Set(pieces.map((piece) => keyOf(piece, this.runId)));
    await Promise.all(
      [...this.written]
        .filter(([key]) => !wanted.has(key))
        .map(async ([key, secret]) => {
          const deleted = await this.kubectl.deleteExact(
            `${secretsPath(secret.namespace)}/${secret.name}`,
            { uid: secret.uid ?? '' },
            this.deadlineMs,
          );
          if (deleted.ok || deleted.notFound) this.written.delete(key);
        }),
    );
  }

  private async writeOne(piece: JournalPiece): Promise<void> {
    const key = keyOf(piece, this.runId);
    const known = this.written.get(key);
    const secret = journalSecret(piece.journal, {
      index: piece.index,
      packed: piece.packed,
      resourceVersion: known?.resourceVersion,
    });
    const written = known
      ? await this.kubectl.replace(secret, `${secretsPath(piece.namespace)}/${secret.metadata.name}`, this.deadlineMs)
      : await this.kubectl.create(secret, secretsPath(piece.namespace), this.deadlineMs);
    if (!written.ok) {
      if (known) throw new Error(`secret/${secret.metadata.name} (namespace ${piece.namespace}): ${written.message}`);
      throw refusedBecause(written, 'secrets', piece.namespace, piece.namespace === this.placement.clusterNamespace);
    }
    this.written.set(key, {
      namespace: piece.namespace,
      name: secret.metadata.name,
      uid: written.object?.metadata.uid ?? known?.uid,
      resourceVersion: written.object?.metadata.resourceVersion,
    });
  }

  private async removeAll(): Promise<void> {
    await removeJournal(this.kubectl, [...this.written.values()], this.deadlineMs);
    this.written.clear();
  }
}

function keyOf(piece: JournalPiece, runId: string): string {
  return `${piece.namespace}/${journalName(runId, piece.index)}`;
}

/** Deletes a run's journal Secrets (by uid when known), its home one last. */
export async function removeJournal(
  kubectl: JournalKubectl,
  secrets: readonly JournalSecretRef[],
  deadlineMs: number,
): Promise<void> {
  const remove = async (secret: JournalSecretRef) => {
    const uid = secret.uid ?? (await kubectl.getObject('secrets', secret.namespace, secret.name))?.metadata.uid;
    if (!uid) return;
    const deleted = await kubectl.deleteExact(`${secretsPath(secret.namespace)}/${secret.name}`, { uid }, deadlineMs);
    if (!deleted.ok && !deleted.notFound)
      throw new Error(
        `kguard could not delete its run journal secret/${secret.name} (namespace ${secret.namespace}): ${deleted.message}`,
      );
  };
  const isHome = (secret: JournalSecretRef) => /-journal$/.test(secret.name);
  await Promise.all(secrets.filter((secret) => !isHome(secret)).map(remove));
  await Promise.all(secrets.filter(isHome).map(remove));
}

export interface JournalListing {
  /** The run's journal, whole: every piece found, merged (pieces.ts). */
  journal: Journal;
  /**
   * When the API server created its first Secret (creationTimestamp, the server's clock): its age
   * is told by that clock alone (liveness.ts journalExpired), never by the writer's `expiresAt`.
   */
  createdAt?: number;
  /** The journal Secrets found. */
  secrets: JournalSecretRef[];
  /** Namespaces whose journal Secrets of this run were not all found (or could not be read). */
  missing: string[];
}

/**
 * Every run journal kguard can see: in one namespace, or in all of them. A run whose journal also
 * has Secrets in other namespaces has those read too (one list per namespace), unless `whole` is
 * false: a journal is only restored whole.
 */
export async function listJournals(
  kubectl: JournalKubectl,
  namespace: string | undefined,
  whole = true,
): Promise<JournalListing[]> {
  const listed = await kubectl.listLabelled('secrets', namespace, `${JOURNAL_LABEL}=${JOURNAL_VERSION}`);
  const byRun = new Map<string, Array<{ journal: Journal; secret: JournalSecretRef; createdAt: number }>>();
  const add = (secrets: readonly KubeObjectLike[]) => {
    for (const secret of secrets) {
      let journal: Journal;
      try {
        journal = readJournalSecret(secret);
      } catch {
        continue;
      }
      const ref = {
        namespace: secret.metadata.namespace ?? journal.namespace,
        name: secret.metadata.name,
        uid: secret.metadata.uid,
      };
      const pieces = byRun.get(journal.runId) ?? [];
      if (!pieces.some((piece) => piece.secret.namespace === ref.namespace && piece.secret.name === ref.name))
        pieces.push({
          journal: { ...journal, namespace: ref.namespace },
          secret: ref,
          createdAt: Date.parse(secret.metadata.creationTimestamp ?? ''),
        });
      byRun.set(journal.runId, pieces);
    }
  };
  add(listed);
  if (namespace !== undefined && whole) {
    await Promise.all(
      [...byRun].map(async ([runId, pieces]) => {
        const elsewhere = new Set(
          pieces.flatMap(({ journal }) => Object.keys(journal.pieces ?? {})).filter((other) => other !== namespace),
        );
        for (const other of elsewhere)
          add(
            await kubectl
              .listLabelled('secrets', other, `${JOURNAL_LABEL}=${JOURNAL_VERSION},${RUN_LABEL}=${runId}`)
              .catch(() => []),
          );
      }),
    );
  }
  return [...byRun.values()]
    .map((pieces) => {
      const { journal, missing } = mergePieces(pieces.map((piece) => piece.journal));
      const created = pieces.map((piece) => piece.createdAt).filter(Number.isFinite);
      return {
        journal,
        ...(created.length > 0 ? { createdAt: Math.min(...created) } : {}),
        secrets: pieces.map((piece) => piece.secret),
        missing,
      };
    })
    .sort((left, right) => left.journal.startedAt.localeCompare(right.journal.startedAt));
}

type KubeObjectLike = Parameters<typeof readJournalSecret>[0];

export function journalExpiry(now: Date): string {
  return new Date(now.getTime() + JOURNAL_TTL_MS).toISOString();
}
