// ControllerRevisions: the revision history of StatefulSets and DaemonSets, following
// kubernetes/pkg/controller/history/controller_history.go. A revision stores the pod template as
// a strategic merge patch `{"spec":{"template":{..., "$patch":"replace"}}}` (statefulset
// stateful_set_utils.go getPatch, daemonset update.go getPatch), so `kubectl rollout undo`
// can apply it back, and a `revision` number: the history order.

import { ApiError } from '../errors.js';
import type { Store } from '../store.js';
import type { KubeObject } from '../types.js';
import { canonical } from './template-hash.js';
import { controllerRef } from './pod-control.js';

/** history.ControllerRevisionHashLabel: the hash of a revision's data, on the revision itself. */
export const REVISION_DATA_HASH_LABEL = 'controller.kubernetes.io/hash';

/** The revision data both controllers store: the pod template, replaced whole on rollback. */
export function templatePatch(template: unknown): Record<string, unknown> {
  return { spec: { template: { ...(template as object), $patch: 'replace' } } };
}

/** The template a revision holds (ApplyRevision reads it back). */
export function templateOf(revision: KubeObject): Record<string, unknown> {
  const template = {
    ...(((revision['data'] as { spec?: { template?: object } } | undefined)?.spec?.template ?? {}) as Record<
      string,
      unknown
    >),
  };
  delete template.$patch;
  return template;
}

/**
 * HashControllerRevision: FNV-1 (hash/fnv New32, not the 32a the deployment controller uses) over
 * the data bytes, then the collision count, encoded with rand.SafeEncodeString. The data is
 * hashed in canonical JSON form: the Go encoder writes null and empty members we may not have.
 */
export function hashRevisionData(data: unknown, collisionCount = 0): string {
  let text = JSON.stringify(canonical(data) ?? {});
  if (collisionCount > 0) text += String(collisionCount);
  return safeEncode(String(fnv32(text)));
}

/** history.ControllerRevisionName: prefix-hash, the prefix cut to 223 bytes. */
export function revisionName(prefix: string, hash: string): string {
  return `${prefix.slice(0, 223)}-${hash}`;
}

/** The revisions `owner` controls, oldest first (history.SortControllerRevisions: revision, then creation, then name). */
export function revisionsOf(store: Store, owner: KubeObject): KubeObject[] {
  return store
    .list('ControllerRevision', owner.metadata.namespace)
    .filter((revision) =>
      revision.metadata.ownerReferences?.some((ref) => ref.controller && ref.uid === owner.metadata.uid),
    )
    .sort(byRevision);
}

export function byRevision(left: KubeObject, right: KubeObject): number {
  const revision = (obj: KubeObject) => Number(obj['revision'] ?? 0);
  if (revision(left) !== revision(right)) return revision(left) - revision(right);
  const created = (left.metadata.creationTimestamp ?? '').localeCompare(right.metadata.creationTimestamp ?? '');
  return created !== 0 ? created : left.metadata.name.localeCompare(right.metadata.name);
}

/** history.NewControllerRevision: labelled like the template, owned by the parent, named by the hash of its data. */
export function newControllerRevision(
  parent: KubeObject,
  templateLabels: Record<string, string>,
  data: Record<string, unknown>,
  revision: number,
  collisionCount: number,
): KubeObject {
  const hash = hashRevisionData(data, collisionCount);
  return {
    apiVersion: 'apps/v1',
    kind: 'ControllerRevision',
    metadata: {
      name: revisionName(parent.metadata.name, hash),
      namespace: parent.metadata.namespace,
      labels: { ...templateLabels, [REVISION_DATA_HASH_LABEL]: hash },
      ownerReferences: [controllerRef(parent, parent.apiVersion)],
    },
    data,
    revision,
  };
}

/** history.EqualRevision: same data (the hash label is only a shortcut for it). */
export function equalRevision(left: KubeObject | undefined, right: KubeObject | undefined): boolean {
  if (!left || !right) return left === right;
  return JSON.stringify(canonical(left['data'])) === JSON.stringify(canonical(right['data']));
}

export function findEqualRevisions(revisions: readonly KubeObject[], needle: KubeObject): KubeObject[] {
  return revisions.filter((revision) => equalRevision(revision, needle));
}

/**
 * realHistory.CreateControllerRevision: a name taken by a revision with other data is a hash
 * collision, so the collision count goes up and the name is computed again. Returns the stored
 * revision and the collision count used.
 */
export function createControllerRevision(
  store: Store,
  parent: KubeObject,
  revision: KubeObject,
  collisionCount: number,
): { revision: KubeObject; collisionCount: number } {
  for (let count = collisionCount; ; count++) {
    const candidate = structuredClone(revision);
    const hash = hashRevisionData(candidate['data'], count);
    candidate.metadata.name = revisionName(parent.metadata.name, hash);
    candidate.metadata.labels = { ...candidate.metadata.labels, [REVISION_DATA_HASH_LABEL]: hash };
    try {
      return { revision: store.create(candidate), collisionCount: count };
    } catch (error) {
      if (!(error instanceof ApiError) || error.code !== 409) throw error;
      const existing = store.get(
        'ControllerRevision',
        candidate.metadata.namespace ?? 'default',
        candidate.metadata.name,
      );
      if (existing && equalRevision(existing, candidate)) return { revision: existing, collisionCount: count };
    }
  }
}

/** realHistory.UpdateControllerRevision: a rollback to an earlier revision moves it to the top of the history. */
export function updateControllerRevision(store: Store, revision: KubeObject, newRevision: number): KubeObject {
  if (Number(revision['revision']) === newRevision) return revision;
  const next = structuredClone(revision);
  next['revision'] = newRevision;
  delete next.metadata.resourceVersion;
  return store.update(next);
}

/** hash/fnv New32 (FNV-1): multiply, then xor. */
function fnv32(text: string): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(text, 'utf8')) {
    hash = Math.imul(hash, 0x01000193) >>> 0;
    hash = (hash ^ byte) >>> 0;
  }
  return hash >>> 0;
}

/** apimachinery rand.SafeEncodeString. */
function safeEncode(text: string): string {
  const alphabet = 'bcdfghjklmnpqrstvwxz2456789';
  return [...Buffer.from(text, 'utf8')].map((byte) => alphabet[byte % alphabet.length]).join('');
}
