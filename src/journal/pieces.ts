// Where a run journal's Secrets go, and how many. Pure: store.ts writes them.
//
// A journal never moves a copy out of its namespace: the copies of a namespace's objects (Secrets
// among them) are journalled in that namespace, so the journal has exactly their protection there.
// Cluster-scoped objects (CRDs, Namespaces, ClusterRoles) are journalled in the journal namespace
// (--journal-namespace, kube-system by default). A namespace the apply creates held nothing
// before it: its objects need no journal. Each namespace's share is cut into as many Secrets as it
// needs, each well under the API server's 1 MiB (ValidateSecret, core.MaxSecretSize), all
// labelled with the run, each naming where every piece is, so a reader can tell it has them all.
import { JournalTooLargeError } from '../errors.js';
import { describeObject, objectKey } from '../objects/model.js';
import { pack, type Journal, type JournalEntry } from './journal.js';

/** The API server refuses a Secret whose data passes 1 MiB (core.MaxSecretSize). */
export const MAX_SECRET_BYTES = 1024 * 1024;
/** kguard fills one journal Secret up to this much compressed data, and splits beyond it. */
export const PIECE_BYTES = 640 * 1024;

export interface JournalPlacement {
  /** Where cluster-scoped objects are journalled (--journal-namespace). */
  clusterNamespace: string;
  /** Namespaces this apply creates: nothing in them needs a journal. */
  created: ReadonlySet<string>;
}

/** One journal Secret to write: its namespace, its position there, and its content. */
export interface JournalPiece {
  namespace: string;
  index: number;
  journal: Journal;
  /** Its data as the Secret holds it: gzip-compressed JSON. */
  packed: Buffer;
}

/** The namespace an object's copies are journalled in; undefined: it needs no journal. */
export function journalNamespaceOf(entry: Pick<JournalEntry, 'ref'>, placement: JournalPlacement): string | undefined {
  if (entry.ref.namespace === '') return placement.clusterNamespace;
  return placement.created.has(entry.ref.namespace) ? undefined : entry.ref.namespace;
}

/**
 * The Secrets of a journal: one or more per namespace, each under `limit` compressed bytes when it
 * holds more than one object, and never over MAX_SECRET_BYTES (one object's copies that alone pass
 * it: JournalTooLargeError). Each object's copies are measured compressed on their own and packed
 * in order while they fit (compressed together they take no more); a namespace whose copies
 * compress well together is tried whole first.
 */
export function journalPieces(journal: Journal, placement: JournalPlacement, limit = PIECE_BYTES): JournalPiece[] {
  const byNamespace = new Map<string, JournalEntry[]>();
  for (const entry of journal.objects) {
    const namespace = journalNamespaceOf(entry, placement);
    if (namespace === undefined) continue;
    byNamespace.set(namespace, [...(byNamespace.get(namespace) ?? []), entry]);
  }
  // Every journal has a piece in its own namespace, even with no object there (a run of objects
  // in namespaces it creates): status, rollback and the leases find the run by it.
  if (!byNamespace.has(journal.namespace)) byNamespace.set(journal.namespace, []);
  const header = { ...journal, objects: [] as JournalEntry[] };
  let chunks = new Map([...byNamespace].map(([namespace, entries]) => [namespace, chunked(entries, limit)]));
  for (;;) {
    const pieces = Object.fromEntries([...chunks].map(([namespace, parts]) => [namespace, parts.length]));
    const written = [...chunks].flatMap(([namespace, parts]) =>
      parts.map((objects, index) => {
        const piece: Journal = { ...header, namespace, home: journal.namespace, objects, pieces };
        return { namespace, index, journal: piece, packed: pack(piece) };
      }),
    );
    // Measured apart, copies never take less together; should one piece still pass the limit, it is halved.
    const over = written.find((piece) => piece.packed.length > MAX_SECRET_BYTES && piece.journal.objects.length > 1);
    if (!over) return written;
    chunks = new Map(
      [...chunks].map(([namespace, parts]) => [
        namespace,
        parts.flatMap((part) => (part === over.journal.objects ? halves(part) : [part])),
      ]),
    );
  }
}

function chunked(entries: JournalEntry[], limit: number): JournalEntry[][] {
  const sizes = entries.map((entry) => pack(entry).length);
  const total = sizes.reduce((sum, size) => sum + size, 0);
  if (total <= limit || (total <= 4 * limit && pack(entries).length <= limit)) return [entries];
  const chunks: JournalEntry[][] = [];
  let current: JournalEntry[] = [];
  let size = 0;
  entries.forEach((entry, index) => {
    const own = sizes[index]!;
    if (own > MAX_SECRET_BYTES)
      throw new JournalTooLargeError(own, MAX_SECRET_BYTES, 1, entry.ref.namespace, describeObject(entry.ref));
    if (current.length > 0 && size + own > limit) {
      chunks.push(current);
      current = [];
      size = 0;
    }
    current.push(entry);
    size += own;
  });
  if (current.length > 0) chunks.push(current);
  return chunks;
}

function halves<T>(items: T[]): T[][] {
  const half = Math.ceil(items.length / 2);
  return [items.slice(0, half), items.slice(half)];
}

/**
 * A run's journal from its pieces, wherever they were read: every object once (a run killed while
 * it rewrote its pieces may have an object in two: the one with the applied copy is the later),
 * the state of the least advanced piece (a piece still "applying" makes `kguard rollback` wait out
 * the apply), and the namespaces whose pieces were not all found.
 */
export function mergePieces(pieces: readonly Journal[]): { journal: Journal; missing: string[] } {
  const [first] = pieces;
  if (!first) throw new Error('a journal needs at least one piece');
  const objects = new Map<string, JournalEntry>();
  for (const piece of pieces) {
    for (const entry of piece.objects) {
      const key = objectKey(entry.ref);
      const known = objects.get(key);
      if (!known || (known.applied === undefined && entry.applied !== undefined)) objects.set(key, entry);
    }
  }
  const expected = new Map<string, number>();
  for (const piece of pieces)
    for (const [namespace, count] of Object.entries(piece.pieces ?? { [piece.namespace]: 1 }))
      expected.set(namespace, Math.max(expected.get(namespace) ?? 0, count));
  const found = new Map<string, number>();
  for (const piece of pieces) found.set(piece.namespace, (found.get(piece.namespace) ?? 0) + 1);
  const missing = [...expected]
    .filter(([namespace, count]) => (found.get(namespace) ?? 0) < count)
    .map(([namespace]) => namespace);
  const states = new Set(pieces.map((piece) => piece.state));
  const state = states.has('applying')
    ? 'applying'
    : states.has('restoring')
      ? 'restoring'
      : states.size === 1 && states.has('finished')
        ? 'finished'
        : 'applied';
  // The piece in the journal's home namespace speaks for the run: the merged journal is "there".
  const homeNamespace = first.home ?? first.namespace;
  const home = pieces.find((piece) => piece.namespace === homeNamespace) ?? first;
  // Home first, then the others by name: the same order wherever the pieces were listed.
  const order = [...expected.keys()].sort((left, right) =>
    left === homeNamespace ? -1 : right === homeNamespace ? 1 : left.localeCompare(right),
  );
  const pieceCounts = Object.fromEntries(order.map((namespace) => [namespace, expected.get(namespace)!]));
  return {
    journal: { ...home, namespace: homeNamespace, state, objects: [...objects.values()], pieces: pieceCounts },
    missing: missing.sort(),
  };
}
