// getNewReplicaSet from sync.go: find the ReplicaSet whose template equals the Deployment's (an
// old one coming back is a rollback: it moves up to revision max+1 and keeps its old number in
// revision-history), or create <deployment>-<pod-template-hash> with revision max+1; then record
// the revision on the Deployment and the NewReplicaSetCreated / FoundNewReplicaSet condition.

import type { SimClock } from '../../clock.js';
import { ApiError } from '../../errors.js';
import type { Store } from '../../store.js';
import type { KubeObject } from '../../types.js';
import type { EventRecorder } from '../events.js';
import { POD_TEMPLATE_HASH_LABEL, equalIgnoreHash, templateHash } from '../template-hash.js';
import {
  FAILED_RS_CREATE_REASON,
  FOUND_NEW_RS_REASON,
  NEW_RS_REASON,
  REVISION_ANNOTATION,
  getCondition,
  hasProgressDeadline,
  maxRevision,
  minReadySeconds,
  newCondition,
  newRSNewReplicas,
  setCondition,
  setNewReplicaSetAnnotations,
  type DeploymentStatus,
} from './util.js';
import { controllerRef } from '../pod-control.js';

const SOURCE = { component: 'deployment-controller' };

export interface RevisionWriter {
  store: Store;
  clock: SimClock;
  recorder: EventRecorder;
  /** Writes the Deployment's annotations (revision) and status in one update. */
  writeDeployment(d: KubeObject, status: DeploymentStatus): void;
}

export function getNewReplicaSet(
  writer: RevisionWriter,
  d: KubeObject,
  existing: KubeObject | undefined,
  oldRSs: KubeObject[],
  createIfNotExisted: boolean,
): KubeObject | undefined {
  const newRevision = maxRevision(oldRSs) + 1;
  if (existing) {
    const copy = structuredClone(existing);
    const annotationsUpdated = setNewReplicaSetAnnotations(d, copy, newRevision, true);
    const minReadyNeedsUpdate = (copy.spec?.minReadySeconds ?? 0) !== minReadySeconds(d);
    let rs = existing;
    if (annotationsUpdated || minReadyNeedsUpdate) {
      setMinReadySeconds(copy, minReadySeconds(d));
      rs = writer.store.update(copy);
      Object.assign(existing, rs);
    }
    let needsUpdate = setDeploymentRevision(d, rs.metadata.annotations?.[REVISION_ANNOTATION] ?? '');
    const status: DeploymentStatus = structuredClone(d.status ?? {});
    if (!getCondition(status, 'Progressing')) {
      setCondition(
        status,
        newCondition(
          'Progressing',
          'True',
          FOUND_NEW_RS_REASON,
          `Found new replica set "${rs.metadata.name}"`,
          writer.clock.nowIso(),
        ),
      );
      needsUpdate = true;
    }
    if (needsUpdate) writer.writeDeployment(d, status);
    return existing;
  }
  if (!createIfNotExisted) return undefined;

  const template = structuredClone(d.spec.template);
  const hash = templateHash(template, d.status?.collisionCount ?? 0);
  template.metadata ??= {};
  template.metadata.labels = { ...(template.metadata.labels ?? {}), [POD_TEMPLATE_HASH_LABEL]: hash };
  const selector = structuredClone(d.spec.selector ?? {});
  selector.matchLabels = { ...(selector.matchLabels ?? {}), [POD_TEMPLATE_HASH_LABEL]: hash };
  const name = `${d.metadata.name}-${hash}`;
  const newRS: KubeObject = {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      name,
      namespace: d.metadata.namespace,
      labels: template.metadata.labels,
      annotations: {},
      ownerReferences: [controllerRef(d, 'apps/v1')],
    },
    spec: { replicas: 0, selector, template },
  };
  setMinReadySeconds(newRS, minReadySeconds(d));
  const replicas = newRSNewReplicas(d, [...oldRSs, newRS], newRS);
  newRS.spec.replicas = replicas;
  setNewReplicaSetAnnotations(d, newRS, newRevision, false);

  let created: KubeObject;
  let alreadyExisted = false;
  try {
    created = writer.store.create(newRS);
  } catch (error) {
    if (error instanceof ApiError && error.reason === 'AlreadyExists') {
      const clash = writer.store.get('ReplicaSet', d.metadata.namespace ?? 'default', name);
      const ours = clash?.metadata.ownerReferences?.some((ref) => ref.controller && ref.uid === d.metadata.uid);
      if (clash && ours && equalIgnoreHash(clash.spec?.template, d.spec.template)) {
        created = clash;
        alreadyExisted = true;
      } else {
        // A hash collision: bump collisionCount so the next sync computes a different name.
        const status: DeploymentStatus = structuredClone(d.status ?? {});
        status.collisionCount = (status.collisionCount ?? 0) + 1;
        writer.writeDeployment(d, status);
        return undefined;
      }
    } else {
      const message = `Failed to create new replica set "${name}": ${(error as Error).message}`;
      if (hasProgressDeadline(d)) {
        const status: DeploymentStatus = structuredClone(d.status ?? {});
        setCondition(
          status,
          newCondition('Progressing', 'False', FAILED_RS_CREATE_REASON, message, writer.clock.nowIso()),
        );
        writer.writeDeployment(d, status);
      }
      writer.recorder.record(d, SOURCE, 'Warning', FAILED_RS_CREATE_REASON, message);
      return undefined;
    }
  }
  if (!alreadyExisted && replicas > 0) {
    writer.recorder.record(
      d,
      SOURCE,
      'Normal',
      'ScalingReplicaSet',
      `Scaled up replica set ${name} from 0 to ${replicas}`,
    );
  }
  let needsUpdate = setDeploymentRevision(d, String(newRevision));
  const status: DeploymentStatus = structuredClone(d.status ?? {});
  if (!alreadyExisted && hasProgressDeadline(d)) {
    setCondition(
      status,
      newCondition('Progressing', 'True', NEW_RS_REASON, `Created new replica set "${name}"`, writer.clock.nowIso()),
    );
    needsUpdate = true;
  }
  if (needsUpdate) writer.writeDeployment(d, status);
  return created;
}

/** SetDeploymentRevision on the in-memory Deployment; the caller writes it. */
function setDeploymentRevision(d: KubeObject, revision: string): boolean {
  d.metadata.annotations ??= {};
  if (d.metadata.annotations[REVISION_ANNOTATION] === revision) return false;
  d.metadata.annotations[REVISION_ANNOTATION] = revision;
  return true;
}

function setMinReadySeconds(rs: KubeObject, seconds: number): void {
  if (seconds > 0) rs.spec.minReadySeconds = seconds;
  else delete rs.spec.minReadySeconds;
}
