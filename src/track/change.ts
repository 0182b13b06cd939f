// What kguard records about a Deployment before the apply, and whether the apply changed it.
import type { Deployment, ReplicaSet } from '../kube.js';
import { revisionOf } from '../kube.js';
import { newReplicaSetFor, templateHashOf } from './template.js';

export interface Before {
  exists: boolean;
  uid?: string;
  revision?: number;
  generation?: number;
  templateHash?: string;
  images: string[];
}

export function recordBefore(deployment: Deployment | undefined, replicaSets: readonly ReplicaSet[]): Before {
  if (!deployment) return { exists: false, images: [] };
  return {
    exists: true,
    uid: deployment.metadata.uid,
    revision: revisionOf(deployment),
    generation: deployment.metadata.generation,
    templateHash: templateHashOf(newReplicaSetFor(deployment, replicaSets)),
    images: imagesOf(deployment),
  };
}

export type Change =
  | { changed: true; how: 'created' | 'updated'; detail: string }
  | { changed: false; detail: string };

/** Did this apply change the Deployment? A new object or a new generation says yes; nothing else does. */
export function detectChange(before: Before, after: Deployment | undefined): Change {
  if (!after) return { changed: false, detail: 'it does not exist after the apply' };
  if (!before.exists) return { changed: true, how: 'created', detail: 'created by this apply' };
  if (after.metadata.uid !== before.uid) return { changed: true, how: 'created', detail: 'deleted and created again' };
  const generationAfter = after.metadata.generation ?? 0;
  const generationBefore = before.generation ?? 0;
  if (generationAfter > generationBefore) {
    return { changed: true, how: 'updated', detail: `generation ${generationBefore} → ${generationAfter}` };
  }
  return { changed: false, detail: `generation ${generationAfter} unchanged` };
}

export function imagesOf(deployment: Deployment): string[] {
  return (deployment.spec?.template?.spec?.containers ?? []).map((container) => container.image ?? '');
}
