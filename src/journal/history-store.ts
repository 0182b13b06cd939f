// Writes and reads the history records (history.ts) with kubectl's raw, conditional writes: a
// record is created once, and the records of a namespace beyond --history are deleted by uid,
// oldest first. History is a courtesy: a record that cannot be written never changes a run's
// verdict or exit code; the caller says why.
import type { Kubectl } from '../kubectl/types.js';
import type { KubeObject } from '../objects/model.js';
import { beyondKeep, historySecret, HISTORY_VERSION, readHistorySecret, type HistoryRecord } from './history.js';
import { HISTORY_LABEL, RUN_LABEL } from './labels.js';

type HistoryKubectl = Pick<Kubectl, 'create' | 'deleteExact' | 'listLabelled'>;

const secretsPath = (namespace: string) => `/api/v1/namespaces/${encodeURIComponent(namespace)}/secrets`;

export interface ListedRecord {
  record: HistoryRecord;
  /** The Secret's uid: a record is deleted only as the one that was read. */
  uid: string;
  /** Its payload (gzip, base64) as stored: what a run's history costs. */
  bytes: number;
}

/** Keeps one run's record and lets the oldest of its namespace go. Throws with what went wrong. */
export async function keepHistory(
  kubectl: HistoryKubectl,
  record: HistoryRecord,
  keep: number,
  deadlineMs: number,
): Promise<{ bytes: number; pruned: number }> {
  const packed = historySecret(record);
  if (!packed)
    throw new Error(
      `its record would be more than a Secret may hold (1 MiB compressed), so it is not kept; kguard undo cannot put back the state before ${record.runId}`,
    );
  // The namespace's records are listed while this one is written (one round trip, not two). The
  // oldest go by what their Secrets' metadata says (run label, finished-at annotation): the
  // records themselves (up to a MiB compressed each, many MiB as JSON) are not unpacked for it.
  const [written, secrets] = await Promise.all([
    kubectl.create(packed.secret, secretsPath(record.namespace), deadlineMs),
    kubectl
      .listLabelled('secrets', record.namespace, `${HISTORY_LABEL}=${HISTORY_VERSION}`)
      .catch(() => [] as KubeObject[]),
  ]);
  if (!written.ok)
    throw new Error(
      `kguard could not write its history record (secret/${packed.secret.metadata.name}, namespace ${record.namespace}): ${written.message}`,
    );
  const old = oldestBeyond(secrets, record, keep);
  await Promise.all(
    old.map((entry) =>
      kubectl.deleteExact(
        `${secretsPath(entry.namespace)}/${encodeURIComponent(entry.name)}`,
        { uid: entry.uid },
        deadlineMs,
      ),
    ),
  );
  return { bytes: packed.bytes, pruned: old.length };
}

/**
 * The records of a namespace to delete once `record` is written, so that the newest `keep` stay:
 * `listed` was read while it was written, so it may or may not hold it; it is never one to go.
 */
export function oldestBeyond(listed: readonly KubeObject[], record: HistoryRecord, keep: number) {
  const others = listed.flatMap(headOf).filter((head) => head.runId !== record.runId);
  const newest = { runId: record.runId, finishedAt: record.finishedAt, uid: '', name: '', namespace: record.namespace };
  return beyondKeep([...others, newest], keep).filter((head) => head !== newest);
}

/** A history Secret's run, end and identity from its metadata alone; none when it lacks them (not one kguard wrote). */
export function headOf(
  secret: KubeObject,
): Array<{ runId: string; finishedAt: string; uid: string; name: string; namespace: string }> {
  const { labels, annotations, uid, name, namespace } = secret.metadata;
  const runId = labels?.[RUN_LABEL];
  const finishedAt = annotations?.['kguard.dev/finished-at'];
  if (!runId || !finishedAt || !uid || !namespace) return [];
  return [{ runId, finishedAt, uid, name, namespace }];
}

/**
 * A run's parts (one record per namespace it changed) as one record: its objects together, its
 * bytes summed, in the first part's namespace. Newest first, as listed.
 */
export function joinParts(listed: readonly ListedRecord[]): ListedRecord[] {
  const runs = new Map<string, ListedRecord>();
  for (const entry of listed) {
    const seen = runs.get(entry.record.runId);
    if (!seen)
      runs.set(entry.record.runId, { ...entry, record: { ...entry.record, objects: [...entry.record.objects] } });
    else {
      seen.record.objects.push(...entry.record.objects);
      seen.bytes += entry.bytes;
    }
  }
  return [...runs.values()];
}

/** Every history record kguard can read: in one namespace, or in all; newest first. */
export async function listHistory(
  kubectl: Pick<Kubectl, 'listLabelled'>,
  namespace: string | undefined,
): Promise<ListedRecord[]> {
  const secrets = await kubectl.listLabelled('secrets', namespace, `${HISTORY_LABEL}=${HISTORY_VERSION}`);
  return secrets
    .flatMap((secret): ListedRecord[] => {
      try {
        const record = readHistorySecret(secret);
        return [
          {
            record,
            uid: secret.metadata.uid ?? '',
            bytes: String((secret as { data?: { history?: string } }).data?.history ?? '').length,
          },
        ];
      } catch {
        // Not readable (a newer format, a damaged Secret): not kguard's to list.
        return [];
      }
    })
    .sort(
      (a, b) => b.record.finishedAt.localeCompare(a.record.finishedAt) || b.record.runId.localeCompare(a.record.runId),
    );
}

/**
 * Removes one run's records (each namespace's part): a fleet that restored a healthy cluster
 * takes back the record its run kept, so `kguard undo` does not offer a run that was undone.
 */
export async function removeHistoryOf(kubectl: HistoryKubectl, runId: string, deadlineMs: number): Promise<void> {
  const parts = (await listHistory(kubectl, undefined)).filter((entry) => entry.record.runId === runId);
  await Promise.all(
    parts.map((entry) =>
      kubectl.deleteExact(
        `${secretsPath(entry.record.namespace)}/${encodeURIComponent(`${runId}-history`)}`,
        { uid: entry.uid },
        deadlineMs,
      ),
    ),
  );
}
