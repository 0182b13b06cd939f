// A successful run's history record, as plain data: what `kguard history` lists and `kguard undo`
// puts back. It is the journal's content, kept: the pre-apply and applied copies of the objects
// the run changed (not those it left alone), with who ran it, where, when, and a digest of its
// inputs. It lives as a Secret beside the journal's (gzip-compressed JSON; the copies may hold
// Secrets, so it gets exactly a Secret's protection), and the last --history of each namespace
// are kept. Pure: history-store.ts reads and writes it.
import { gunzipSync, gzipSync } from 'node:zlib';
import type { ChangeKind, Outcome } from '../model/result.js';
import type { KubeObject, ObjectRef } from '../objects/model.js';
import { HISTORY_LABEL, HISTORY_TYPE, MANAGED_BY, MANAGED_BY_LABEL, RUN_LABEL } from './labels.js';
import type { Journal } from './journal.js';

export const HISTORY_VERSION = 'v1';
/** The API server refuses Secrets over 1 MiB (apimachinery validation: MaxSecretSize). */
const MAX_SECRET_BYTES = 1024 * 1024;

export interface HistoryEntry {
  ref: ObjectRef;
  change: ChangeKind;
  /** Before the run; null when it created the object. */
  before: KubeObject | null;
  /** As the run left it; null when it deleted (pruned) the object. */
  applied: KubeObject | null;
}

export interface HistoryRecord {
  runId: string;
  /** Where the record lives: the run's journal namespace. */
  namespace: string;
  startedAt: string;
  finishedAt: string;
  /** Who: the kubeconfig user of the run's context (kubectl config view --minify), and the context. */
  user: string;
  context: string;
  command: string;
  /** sha256 of kubectl's reading of the inputs (its client dry run), canonical JSON. */
  inputsDigest: string;
  outcome: Outcome;
  objects: HistoryEntry[];
}

export function historyName(runId: string): string {
  return `${runId}-history`;
}

/** The record as its Secret, or undefined when it would not fit in one (the run stands; its record is not kept). */
export function historySecret(record: HistoryRecord): { secret: KubeObject; bytes: number } | undefined {
  const packed = gzipJson(record).toString('base64');
  if (packed.length > MAX_SECRET_BYTES) return undefined;
  const secret: KubeObject = {
    apiVersion: 'v1',
    kind: 'Secret',
    type: HISTORY_TYPE,
    metadata: {
      name: historyName(record.runId),
      namespace: record.namespace,
      labels: { [HISTORY_LABEL]: HISTORY_VERSION, [MANAGED_BY_LABEL]: MANAGED_BY, [RUN_LABEL]: record.runId },
      annotations: {
        'kguard.dev/finished-at': record.finishedAt,
        'kguard.dev/user': record.user,
        'kguard.dev/objects': String(record.objects.length),
      },
    },
    data: { history: packed },
  };
  return { secret, bytes: packed.length };
}

/** How much JSON text one gzip member holds: deflate's window is 32 KiB, so a member loses little. */
const MEMBER_CHARS = 256 * 1024;

/**
 * The record as gzip, written in members of about MEMBER_CHARS of JSON each, one object's text at
 * a time (a gzip file is a series of members, RFC 1952 2.2; gunzip reads them as one text). At
 * 1,000 objects the whole text and its bytes were 10 MB held at once at the end of the run.
 */
function gzipJson(record: HistoryRecord): Buffer {
  const members: Buffer[] = [];
  let pending: string[] = [];
  let chars = 0;
  const add = (text: string) => {
    pending.push(text);
    chars += text.length;
    if (chars >= MEMBER_CHARS) flush();
  };
  const flush = () => {
    if (pending.length === 0) return;
    members.push(gzipSync(pending.join('')));
    pending = [];
    chars = 0;
  };
  const { objects, ...head } = record;
  const opening = JSON.stringify(head).slice(0, -1);
  add(`${opening}${opening.length > 1 ? ',' : ''}"objects":[`);
  for (const [index, object] of objects.entries()) add(`${index > 0 ? ',' : ''}${JSON.stringify(object)}`);
  add(']}');
  flush();
  return Buffer.concat(members);
}

export function readHistorySecret(secret: KubeObject): HistoryRecord {
  const data = (secret as { data?: { history?: string } }).data?.history;
  if (!data) throw new Error(`secret ${secret.metadata.name} holds no kguard history record`);
  return JSON.parse(gunzipSync(Buffer.from(data, 'base64')).toString('utf8')) as HistoryRecord;
}

/** Records to delete so that the newest `keep` of a namespace stay: oldest first out. Run ids sort by start time. */
export function beyondKeep<T extends { runId: string; finishedAt: string }>(records: readonly T[], keep: number): T[] {
  const newestFirst = [...records].sort(
    (a, b) => b.finishedAt.localeCompare(a.finishedAt) || b.runId.localeCompare(a.runId),
  );
  return newestFirst.slice(Math.max(0, keep));
}

/** `kguard undo` restores a record as `kguard rollback` restores a journal: the same shape, the same rule. */
export function asJournal(record: HistoryRecord): Journal {
  return {
    runId: record.runId,
    startedAt: record.startedAt,
    expiresAt: record.finishedAt,
    namespace: record.namespace,
    state: 'applied',
    command: record.command,
    objects: record.objects.map(({ ref, before, applied }) => ({ ref, before, applied })),
  };
}
