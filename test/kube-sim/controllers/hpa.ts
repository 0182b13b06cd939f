// The horizontal pod autoscaler controller of 1.32 (pkg/controller/podautoscaler/horizontal.go:
// reconcileAutoscaler, normalizeDesiredReplicasWithBehaviors, setCondition), acting through the
// scale subresource of its scaleTargetRef (Deployment, StatefulSet, ReplicaSet) as
// `kube-controller-manager`, so the target's managedFields show it owning spec.replicas with
// `subresource: scale`. There is no metrics server: what the metrics would ask for comes from the
// scenario (`autoscaling.desiredReplicas`, by `namespace/name` or `name`) or the HPA's annotation
// `sim.kguard.dev/desired-replicas`; without either the metrics are at target and the count stays.
// Every HPA is synced at creation and then every `autoscaling.syncPeriodMs` (15 s upstream).
//
// Simulated: min/max clamping, the default behavior (scale up by at most max(100%, 4 pods) per
// sync, scale-down stabilized over 300 s), scaling disabled at 0 replicas, the status
// (currentReplicas, desiredReplicas, lastScaleTime, conditions AbleToScale / ScalingActive /
// ScalingLimited) and the SuccessfulRescale / FailedGetScale events. Not simulated: custom
// behavior policies, tolerance, currentMetrics.

import type { SimClock } from '../clock.js';
import { ApiError } from '../errors.js';
import type { Scenario } from '../scenario.js';
import type { Store } from '../store.js';
import type { KubeObject, StoreEvent } from '../types.js';
import { ApiWriter } from './api-writer.js';
import type { EventRecorder } from './events.js';
import { describeMetric, limitedBy, type Recommendation } from './hpa-rules.js';
import { namespacedKey, splitKey } from './workqueue.js';
import { KindController } from './queued-controller.js';

const MANAGER = 'kube-controller-manager';
const SOURCE = { component: 'horizontal-pod-autoscaler' };
const SCALABLE_KINDS = new Set(['Deployment', 'StatefulSet', 'ReplicaSet']);
const SCALE_DOWN_STABILIZATION_MS = 300_000;
export const DESIRED_REPLICAS_ANNOTATION = 'sim.kguard.dev/desired-replicas';

interface Condition {
  type: string;
  status: 'True' | 'False';
  lastTransitionTime: string;
  reason: string;
  message: string;
}

export class HorizontalPodAutoscalerController extends KindController {
  private readonly writer: ApiWriter;
  /** Per HPA uid: recent recommendations, for the scale-down stabilization window. */
  private readonly recommendations = new Map<string, Recommendation[]>();

  constructor(
    store: Store,
    clock: SimClock,
    recorder: EventRecorder,
    private readonly scenario: Scenario,
  ) {
    super(
      store,
      clock,
      recorder,
      scenario.timing.controllerStepMs,
      'horizontal-pod-autoscaler',
      'HorizontalPodAutoscaler',
    );
    this.writer = new ApiWriter(store, clock);
  }

  protected override onEvent({ type, object }: StoreEvent): void {
    if (object.kind !== 'HorizontalPodAutoscaler') return;
    if (type === 'DELETED') this.recommendations.delete(object.metadata.uid ?? '');
    // A spec change is synced soon; status writes (ours) are not a reason to sync again.
    else if (type === 'ADDED') this.queue.add(namespacedKey(object.metadata.namespace, object.metadata.name));
  }

  protected override sync(key: string): void {
    const [namespace, name] = splitKey(key);
    const hpa = this.store.get('HorizontalPodAutoscaler', namespace, name);
    if (!hpa) return;
    // The resync: every HPA again after the sync period, whatever happened.
    this.queue.add(key, this.scenario.crowd.autoscaling.syncPeriodMs);
    const reference = hpa.spec?.scaleTargetRef ?? {};
    const target = SCALABLE_KINDS.has(reference.kind)
      ? this.store.get(reference.kind, namespace, reference.name)
      : undefined;
    if (!target) return this.failedGetScale(hpa, reference);
    this.reconcile(hpa, target);
  }

  private reconcile(hpa: KubeObject, target: KubeObject): void {
    const now = this.clock.now().getTime();
    const min: number = hpa.spec.minReplicas ?? 1;
    const max: number = hpa.spec.maxReplicas;
    const current: number = target.spec?.replicas ?? 1;
    const metric = describeMetric(hpa.spec.metrics);
    const conditions: Condition[] = [];
    let desired: number;
    let reason = '';
    if (current === 0 && min !== 0) {
      desired = 0;
      conditions.push(
        this.condition(
          'ScalingActive',
          'False',
          'ScalingDisabled',
          'scaling is disabled since the replica count of the target is zero',
          hpa,
        ),
      );
    } else if (current > max) {
      [desired, reason] = [max, 'Current number of replicas above Spec.MaxReplicas'];
    } else if (current < min) {
      [desired, reason] = [min, 'Current number of replicas below Spec.MinReplicas'];
    } else {
      const proposal = this.metricProposal(hpa, current);
      conditions.push(
        this.condition(
          'ScalingActive',
          'True',
          'ValidMetricFound',
          `the HPA was able to successfully calculate a replica count from ${metric}`,
          hpa,
        ),
      );
      // stabilizeRecommendationWithBehaviors: the recommendations of the window, this one included
      // (a new HPA has none yet, so its first recommendation applies at once).
      const history = (this.recommendations.get(hpa.metadata.uid ?? '') ?? []).filter(
        (entry) => now - entry.at < SCALE_DOWN_STABILIZATION_MS,
      );
      history.push({ at: now, replicas: proposal });
      this.recommendations.set(hpa.metadata.uid ?? '', history);
      const limited = limitedBy(proposal, current, min, max, history);
      desired = limited.replicas;
      conditions.push(
        this.condition('ScalingLimited', limited.limited ? 'True' : 'False', limited.reason, limited.message, hpa),
      );
      if (desired > current) reason = `${metric} above target`;
      else if (desired < current) reason = 'All metrics below target';
      if (limited.stabilized && desired === current) {
        conditions.push(
          this.condition(
            'AbleToScale',
            'True',
            'ScaleDownStabilized',
            'recent recommendations were higher than current one, applying the highest recent recommendation',
            hpa,
          ),
        );
      }
    }
    const rescale = desired !== current;
    if (rescale) {
      this.writer.scale(MANAGER, target, desired);
      conditions.push(
        this.condition(
          'AbleToScale',
          'True',
          'SucceededRescale',
          `the HPA controller was able to update the target scale to ${desired}`,
          hpa,
        ),
      );
      this.recorder.record(hpa, SOURCE, 'Normal', 'SuccessfulRescale', `New size: ${desired}; reason: ${reason}`);
    } else if (!conditions.some((c) => c.type === 'AbleToScale')) {
      conditions.push(
        this.condition('AbleToScale', 'True', 'ReadyForNewScale', 'recommended size matches current size', hpa),
      );
    }
    const status = {
      ...(hpa.status ?? {}),
      observedGeneration: hpa.metadata.generation,
      currentReplicas: current,
      desiredReplicas: desired,
      ...(rescale ? { lastScaleTime: this.clock.nowIso() } : {}),
      conditions: mergeConditions(hpa.status?.conditions ?? [], conditions),
    };
    this.writeStatus(hpa, status);
  }

  /** What the metrics ask for: the scenario's number, else the HPA's annotation, else no change. */
  private metricProposal(hpa: KubeObject, current: number): number {
    const byName = this.scenario.crowd.autoscaling.desiredReplicas;
    const fromScenario = byName[`${hpa.metadata.namespace}/${hpa.metadata.name}`] ?? byName[hpa.metadata.name];
    const fromAnnotation = Number(hpa.metadata.annotations?.[DESIRED_REPLICAS_ANNOTATION] ?? NaN);
    if (fromScenario !== undefined) return fromScenario;
    return Number.isInteger(fromAnnotation) ? fromAnnotation : current;
  }

  private failedGetScale(hpa: KubeObject, reference: { kind?: string; name?: string }): void {
    const resource =
      reference.kind === 'StatefulSet'
        ? 'statefulsets.apps'
        : reference.kind === 'ReplicaSet'
          ? 'replicasets.apps'
          : 'deployments.apps';
    const error = `${resource} "${reference.name}" not found`;
    this.recorder.record(hpa, SOURCE, 'Warning', 'FailedGetScale', error);
    const condition = this.condition(
      'AbleToScale',
      'False',
      'FailedGetScale',
      `the HPA controller was unable to get the target's current scale: ${error}`,
      hpa,
    );
    this.writeStatus(hpa, {
      ...(hpa.status ?? {}),
      currentReplicas: hpa.status?.currentReplicas ?? 0,
      desiredReplicas: hpa.status?.desiredReplicas ?? 0,
      conditions: mergeConditions(hpa.status?.conditions ?? [], [condition]),
    });
  }

  private writeStatus(hpa: KubeObject, status: Record<string, unknown>): void {
    const fresh = this.store.get('HorizontalPodAutoscaler', hpa.metadata.namespace ?? 'default', hpa.metadata.name);
    if (!fresh) return;
    try {
      this.writer.updateStatus(MANAGER, { ...fresh, status });
    } catch (error) {
      if (!(error instanceof ApiError && error.code === 409)) throw error;
    }
  }

  private condition(
    type: string,
    status: 'True' | 'False',
    reason: string,
    message: string,
    hpa: KubeObject,
  ): Condition {
    const previous = ((hpa.status?.conditions ?? []) as Condition[]).find((c) => c.type === type);
    const lastTransitionTime =
      previous && previous.status === status ? previous.lastTransitionTime : this.clock.nowIso();
    return { type, status, lastTransitionTime, reason, message };
  }
}

/** setCondition: replaces conditions of the same type, keeps the order AbleToScale, ScalingActive, ScalingLimited. */
function mergeConditions(existing: Condition[], updates: Condition[]): Condition[] {
  const byType = new Map(existing.map((c) => [c.type, c]));
  for (const update of updates) byType.set(update.type, update);
  const order = ['AbleToScale', 'ScalingActive', 'ScalingLimited'];
  return [...byType.values()].sort((a, b) => order.indexOf(a.type) - order.indexOf(b.type));
}
