// The daemonset controller, following kubernetes/pkg/controller/daemon (daemon_controller.go
// syncDaemonSet / manage / podsShouldBeOnNode / updateDaemonSetStatus, update.go
// constructHistory / rollingUpdate / findUpdatedPodsOnNode, util/daemonset_util.go): one pod per
// node that matches the template's nodeSelector, pinned to it by a required node affinity on
// metadata.name (the scheduler binds it); a ControllerRevision per template, named
// `<ds>-<hash>` where the hash is the template's (controller.ComputeHash, FNV-32a as for
// Deployments); pods labelled `controller-revision-hash` (the hash) and `pod-template-generation`.
// RollingUpdate deletes old pods while at most maxUnavailable pods are unavailable (an old pod
// that is unavailable anyway is replaced at once) and the manage loop creates the new ones;
// OnDelete replaces nothing. Failed pods are deleted and made again.
//
// Not simulated: maxSurge (the surge path; pods are replaced as with maxSurge 0), taints and the
// tolerations' effect, minReadySeconds wake-ups, the failed-pod back-off, collision counts.

import type { SimClock } from '../clock.js';
import { ApiError } from '../errors.js';
import type { Scenario } from '../scenario.js';
import { applyDefaults } from '../server/defaults.js';
import type { Store } from '../store.js';
import type { KubeObject, StoreEvent } from '../types.js';
import type { EventRecorder } from './events.js';
import { byRevision, equalRevision, templatePatch } from './history.js';
import { isOwnedBy, isPodAvailable, isPodReady } from './pods.js';
import { templateHash } from './template-hash.js';
import { splitKey } from './workqueue.js';
import { KindController } from './queued-controller.js';
import { controllerRef, PodControl } from './pod-control.js';

const SOURCE = { component: 'daemonset-controller' };
/** apps.DefaultDaemonSetUniqueLabelKey and DaemonSetTemplateGenerationKey. */
const HASH_LABEL = 'controller-revision-hash';
const TEMPLATE_GENERATION_LABEL = 'pod-template-generation';
const TEMPLATE_GENERATION_ANNOTATION = 'deprecated.daemonset.template.generation';

/** util.AddOrUpdateDaemonPodTolerations: what every daemon pod tolerates. */
const DAEMON_TOLERATIONS = [
  { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' },
  { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' },
  { key: 'node.kubernetes.io/disk-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/pid-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' },
];

export class DaemonSetController extends KindController {
  private readonly pods = new PodControl(this.store, this.recorder, SOURCE);
  constructor(
    store: Store,
    clock: SimClock,
    recorder: EventRecorder,
    private readonly scenario: Scenario,
  ) {
    super(store, clock, recorder, scenario.timing.controllerStepMs, 'daemonset-controller', 'DaemonSet');
  }

  protected override onEvent({ type, object }: StoreEvent): void {
    this.queueWithPods(type, object, 'DaemonSet');
  }

  protected override sync(key: string): void {
    const [namespace, name] = splitKey(key);
    const ds = this.store.get('DaemonSet', namespace, name);
    if (!ds || ds.metadata.deletionTimestamp) return;
    const hash = this.constructHistory(ds);
    const changed = this.manage(ds, hash);
    // The real controller waits for its expectations (the pods it just created or deleted) before
    // a rolling update step; here they are already in the store, so a sync that changed pods waits
    // for the next one.
    if (!changed && ds.spec?.updateStrategy?.type === 'RollingUpdate') this.rollingUpdate(ds, hash);
    this.cleanupHistory(ds, hash);
    this.updateStatus(ds, hash);
  }

  /** The nodes this DaemonSet should run on: those its template's nodeSelector matches. */
  private nodesToRunOn(ds: KubeObject): string[] {
    const selector: Record<string, string> = ds.spec?.template?.spec?.nodeSelector ?? {};
    return this.scenario.nodes
      .filter((node) => Object.entries(selector).every(([key, value]) => node.labels[key] === value))
      .map((node) => node.name);
  }

  /** getNodesToDaemonPods: by target node (spec.nodeName, else the node the affinity names); deleted terminal pods left out. */
  private podsByNode(ds: KubeObject): Map<string, KubeObject[]> {
    const byNode = new Map<string, KubeObject[]>();
    for (const pod of this.store.list('Pod', ds.metadata.namespace).filter((candidate) => isOwnedBy(candidate, ds))) {
      if (isFinished(pod) && pod.metadata.deletionTimestamp) continue;
      const node = targetNode(pod);
      if (!node) continue;
      byNode.set(node, [...(byNode.get(node) ?? []), pod]);
    }
    return byNode;
  }

  /**
   * constructHistory: the current revision is the one for this template (named by its hash);
   * an older one brought back moves to the top of the history. Returns the hash.
   */
  private constructHistory(ds: KubeObject): string {
    const hash = templateHash(ds.spec?.template, ds.status?.collisionCount ?? 0);
    const revisions = this.store
      .list('ControllerRevision', ds.metadata.namespace)
      .filter((revision) => isOwnedBy(revision, ds))
      .sort(byRevision);
    const max = revisions.length === 0 ? 0 : Number(revisions[revisions.length - 1]!['revision']);
    const data = templatePatch(ds.spec?.template);
    const candidate: KubeObject = {
      apiVersion: 'apps/v1',
      kind: 'ControllerRevision',
      metadata: {
        name: `${ds.metadata.name.slice(0, 223)}-${hash}`,
        namespace: ds.metadata.namespace,
        labels: { ...(ds.spec?.template?.metadata?.labels ?? {}), [HASH_LABEL]: hash },
        ownerReferences: [controllerRef(ds, 'apps/v1')],
      },
      data,
      revision: max + 1,
    };
    const current = revisions.find(
      (revision) => revision.metadata.labels?.[HASH_LABEL] === hash || equalRevision(revision, candidate),
    );
    if (!current) {
      try {
        this.store.create(candidate);
      } catch (error) {
        if (!(error instanceof ApiError) || error.code !== 409) throw error;
      }
    } else if (Number(current['revision']) < max) {
      const moved = structuredClone(current);
      moved['revision'] = max + 1;
      delete moved.metadata.resourceVersion;
      this.store.update(moved);
    }
    return hash;
  }

  /** manage / podsShouldBeOnNode: a pod on every node that should run one, none elsewhere, failed pods replaced. Returns whether it changed pods. */
  private manage(ds: KubeObject, hash: string): boolean {
    const byNode = this.podsByNode(ds);
    const shouldRun = new Set(this.nodesToRunOn(ds));
    let changed = false;
    for (const node of this.scenario.nodes.map((candidate) => candidate.name)) {
      const pods = byNode.get(node) ?? [];
      if (!shouldRun.has(node)) {
        for (const pod of pods.filter((candidate) => !candidate.metadata.deletionTimestamp))
          changed = this.deletePod(ds, pod) || changed;
        continue;
      }
      if (pods.length === 0) {
        changed = this.createPod(ds, node, hash) || changed;
        continue;
      }
      const running: KubeObject[] = [];
      for (const pod of pods) {
        if (pod.metadata.deletionTimestamp) continue;
        if (pod.status?.phase === 'Failed') {
          this.recorder.record(
            ds,
            SOURCE,
            'Warning',
            'FailedDaemonPod',
            `Found failed daemon pod ${pod.metadata.namespace}/${pod.metadata.name} on node ${node}, will try to kill it`,
          );
          changed = this.deletePod(ds, pod) || changed;
        } else if (pod.status?.phase === 'Succeeded') {
          changed = this.deletePod(ds, pod) || changed;
        } else {
          running.push(pod);
        }
      }
      // Without surge, more than one running pod on a node: keep the oldest.
      running.sort((a, b) => (a.metadata.creationTimestamp ?? '').localeCompare(b.metadata.creationTimestamp ?? ''));
      for (const extra of running.slice(1)) changed = this.deletePod(ds, extra) || changed;
    }
    return changed;
  }

  /** rollingUpdate with maxSurge 0: delete old pods while the unavailable ones stay within maxUnavailable. */
  private rollingUpdate(ds: KubeObject, hash: string): void {
    const byNode = this.podsByNode(ds);
    const desired = this.nodesToRunOn(ds).length;
    const maxUnavailable = Math.max(
      1,
      scaledValue(ds.spec?.updateStrategy?.rollingUpdate?.maxUnavailable ?? 1, desired),
    );
    const now = this.clock.now();
    const minReady = ds.spec?.minReadySeconds ?? 0;
    let unavailable = 0;
    const replacements: KubeObject[] = [];
    const candidates: KubeObject[] = [];
    for (const pods of byNode.values()) {
      const found = this.updatedPodsOnNode(ds, pods, hash);
      if (!found) {
        unavailable++;
        continue;
      }
      const { newPod, oldPod } = found;
      if ((!oldPod && !newPod) || (oldPod && newPod)) unavailable++;
      else if (newPod) {
        if (!isPodAvailable(newPod, minReady, now)) unavailable++;
      } else if (oldPod && !isPodAvailable(oldPod, minReady, now)) replacements.push(oldPod);
      else if (oldPod && unavailable < maxUnavailable) candidates.push(oldPod);
    }
    const remaining = Math.min(Math.max(maxUnavailable - unavailable, 0), candidates.length);
    for (const pod of [...replacements, ...candidates.slice(0, remaining)]) this.deletePod(ds, pod);
  }

  /** findUpdatedPodsOnNode: at most one new and one old pod on a node, or the node is in disorder. */
  private updatedPodsOnNode(
    ds: KubeObject,
    pods: KubeObject[],
    hash: string,
  ): { newPod?: KubeObject; oldPod?: KubeObject } | undefined {
    let newPod: KubeObject | undefined;
    let oldPod: KubeObject | undefined;
    for (const pod of pods) {
      if (pod.metadata.deletionTimestamp) continue;
      if (isPodUpdated(pod, hash, ds)) {
        if (newPod) return undefined;
        newPod = pod;
      } else {
        if (oldPod) return undefined;
        oldPod = pod;
      }
    }
    return { newPod, oldPod };
  }

  private createPod(ds: KubeObject, node: string, hash: string): boolean {
    const template = structuredClone(ds.spec?.template ?? {});
    const spec = template.spec ?? { containers: [] };
    // util.ReplaceDaemonSetPodNodeNameNodeAffinity: pinned to its node, placed by the scheduler.
    spec.affinity = {
      ...(spec.affinity ?? {}),
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [node] }] }],
        },
      },
    };
    spec.tolerations = [...(spec.tolerations ?? []), ...DAEMON_TOLERATIONS];
    const generation = ds.metadata.annotations?.[TEMPLATE_GENERATION_ANNOTATION];
    const pod: KubeObject = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: '',
        generateName: `${ds.metadata.name}-`,
        namespace: ds.metadata.namespace,
        labels: {
          ...(template.metadata?.labels ?? {}),
          [HASH_LABEL]: hash,
          ...(generation ? { [TEMPLATE_GENERATION_LABEL]: generation } : {}),
        },
        ownerReferences: [controllerRef(ds, 'apps/v1')],
      },
      spec,
    };
    if (template.metadata?.annotations) pod.metadata.annotations = template.metadata.annotations;
    applyDefaults(pod);
    return !(this.pods.create(ds, pod) instanceof ApiError);
  }

  private deletePod(ds: KubeObject, pod: KubeObject): boolean {
    this.pods.delete(ds, pod, this.clock.now());
    return true;
  }

  /** cleanupHistory: old revisions no pod runs, beyond revisionHistoryLimit, oldest first. */
  private cleanupHistory(ds: KubeObject, hash: string): void {
    const live = new Set([
      hash,
      ...this.store
        .list('Pod', ds.metadata.namespace)
        .filter((pod) => isOwnedBy(pod, ds))
        .map((pod) => pod.metadata.labels?.[HASH_LABEL]),
    ]);
    const old = this.store
      .list('ControllerRevision', ds.metadata.namespace)
      .filter((revision) => isOwnedBy(revision, ds) && !live.has(revision.metadata.labels?.[HASH_LABEL]))
      .sort(byRevision);
    const excess = old.length - (ds.spec?.revisionHistoryLimit ?? 10);
    for (const revision of old.slice(0, Math.max(0, excess)))
      this.store.delete('ControllerRevision', revision.metadata.namespace ?? 'default', revision.metadata.name);
  }

  /** updateDaemonSetStatus: counted on the oldest pod of each node that should run one. */
  private updateStatus(ds: KubeObject, hash: string): void {
    const byNode = this.podsByNode(ds);
    const shouldRun = new Set(this.nodesToRunOn(ds));
    const now = this.clock.now();
    let desired = 0;
    let current = 0;
    let misscheduled = 0;
    let ready = 0;
    let available = 0;
    let updated = 0;
    for (const node of this.scenario.nodes.map((candidate) => candidate.name)) {
      const pods = byNode.get(node) ?? [];
      if (!shouldRun.has(node)) {
        if (pods.length > 0) misscheduled++;
        continue;
      }
      desired++;
      if (pods.length === 0) continue;
      current++;
      const pod = [...pods].sort(byCreationAndPhase)[0]!;
      if (isPodReady(pod)) {
        ready++;
        if (isPodAvailable(pod, ds.spec?.minReadySeconds ?? 0, now)) available++;
      }
      if (isPodUpdated(pod, hash, ds)) updated++;
    }
    const status: Record<string, unknown> = {
      currentNumberScheduled: current,
      numberMisscheduled: misscheduled,
      desiredNumberScheduled: desired,
      numberReady: ready,
    };
    if (ds.metadata.generation) status.observedGeneration = ds.metadata.generation;
    if (updated) status.updatedNumberScheduled = updated;
    if (available) status.numberAvailable = available;
    if (desired - available > 0) status.numberUnavailable = desired - available;
    const fresh = this.store.get('DaemonSet', ds.metadata.namespace ?? 'default', ds.metadata.name);
    if (
      !fresh ||
      fresh.metadata.uid !== ds.metadata.uid ||
      JSON.stringify(fresh.status ?? {}) === JSON.stringify(status)
    )
      return;
    this.store.updateStatus({ ...fresh, metadata: { ...fresh.metadata, resourceVersion: undefined }, status });
  }
}

/** util.IsPodUpdated: the template generation label or the hash label says it runs the current template. */
function isPodUpdated(pod: KubeObject, hash: string, ds: KubeObject): boolean {
  const generation = ds.metadata.annotations?.[TEMPLATE_GENERATION_ANNOTATION];
  const templateMatches = generation !== undefined && pod.metadata.labels?.[TEMPLATE_GENERATION_LABEL] === generation;
  const hashMatches = hash.length > 0 && pod.metadata.labels?.[HASH_LABEL] === hash;
  return hashMatches || templateMatches;
}

/** util.GetTargetNodeName: spec.nodeName once bound, else the node its affinity names. */
function targetNode(pod: KubeObject): string | undefined {
  if (pod.spec?.nodeName) return pod.spec.nodeName;
  const terms =
    pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [];
  for (const term of terms as { matchFields?: { key: string; values?: string[] }[] }[]) {
    const field = term.matchFields?.find((candidate) => candidate.key === 'metadata.name');
    if (field?.values?.length === 1) return field.values[0];
  }
  return undefined;
}

const isFinished = (pod: KubeObject): boolean => pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';

/** podByCreationTimestampAndPhase: running before pending, then oldest first. */
function byCreationAndPhase(left: KubeObject, right: KubeObject): number {
  const running = (pod: KubeObject) => (pod.status?.phase === 'Running' ? 0 : 1);
  if (running(left) !== running(right)) return running(left) - running(right);
  return (left.metadata.creationTimestamp ?? '').localeCompare(right.metadata.creationTimestamp ?? '');
}

/** intstr.GetScaledValueFromIntOrPercent, rounding up (as updatedDesiredNodeCounts does for maxUnavailable). */
function scaledValue(value: number | string, total: number): number {
  if (typeof value === 'number') return value;
  const percent = /^(\d+)%$/.exec(value);
  return percent ? Math.ceil((Number(percent[1]) * total) / 100) : Number(value) || 0;
}
