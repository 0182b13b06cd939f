// Any other kind with a status, custom resources included, by the kstatus conventions
// (sigs.k8s.io/cli-utils/pkg/kstatus/status, checkGenericProperties): in progress while
// status.observedGeneration (where it is written) is behind metadata.generation or a Reconciling
// condition is True; failed when a Stalled condition is True; done when its Ready condition (or,
// without one, Available) is True, or when it has neither. A Ready that stays False is waited for
// until the deadline: many controllers report False while they work. Where the kind's API serves a
// status subresource, an object with no status at all waits for its controller's first write
// (up to --status-grace), rather than being called done before its first reconcile.
import { STALLED } from '../../classify/conditions.js';
import { conditionOf, type Condition, type StatusConventions } from '../../kube.js';
import type { RolloutRules } from '../engine.js';
import { reportsGeneration } from '../status-moment.js';

/**
 * `statusGraceSeconds`: the kind's API serves a status subresource, so a controller writes its
 * status: an object with none yet is waited for that long before kstatus judges it without one.
 */
export function genericRules(kind: string, statusGraceSeconds?: number): RolloutRules<StatusConventions> {
  return {
    controller: `${kind} controller`,
    ...(statusGraceSeconds !== undefined
      ? {
          firstStatus: {
            missing: (object: StatusConventions) => !written(object.status),
            graceSeconds: statusGraceSeconds,
          },
          freshStatus: {
            reportsGeneration: (object: StatusConventions) => reportsGeneration(object),
            graceSeconds: statusGraceSeconds,
          },
        }
      : {}),
    observed: (object) =>
      object.status?.observedGeneration === undefined ||
      object.status.observedGeneration >= (object.metadata.generation ?? 0),
    newPods: () => [],
    wait(object) {
      const reconciling = conditionOf(object, 'Reconciling');
      if (reconciling?.status === 'True') return `reconciling${said(reconciling)}`;
      const readiness = conditionOf(object, 'Ready') ?? conditionOf(object, 'Available');
      // A condition that names the generation it was written for speaks only for that one
      // (metav1.Condition.observedGeneration): an older Ready True is not this spec's verdict.
      if (readiness && stale(readiness, object))
        return `waiting for the ${kind} controller to write ${readiness.type} for generation ${object.metadata.generation ?? '?'} (it is for ${readiness.observedGeneration})`;
      if (readiness && readiness.status !== 'True')
        return `waiting for ${readiness.type} to be True (it is ${readiness.status}${said(readiness)})`;
      return undefined;
    },
    failure(object) {
      const stalled = conditionOf(object, 'Stalled');
      if (stalled?.status !== 'True' || stale(stalled, object)) return undefined;
      const rule = {
        ...STALLED,
        nextStep: `read its conditions and events: kubectl describe ${kind.toLowerCase()} NAME -n NAMESPACE`,
      };
      return { source: 'condition', reason: stalled.reason ?? 'Stalled', message: stalled.message ?? '', rule };
    },
    progress(object) {
      const readiness = conditionOf(object, 'Ready') ?? conditionOf(object, 'Available');
      const summary = readiness
        ? `${readiness.type} ${readiness.status}`
        : written(object.status)
          ? `generation ${object.metadata.generation ?? '?'} observed`
          : 'no status yet';
      return { desired: 0, updated: 0, ready: 0, available: 0, summary };
    },
  };
}

/** Whether a status holds anything: a controller's first write, or a default the API server gave it (then kstatus judges what it says). */
function written(value: unknown): boolean {
  if (value === undefined || value === null || value === '') return false;
  if (Array.isArray(value)) return value.some(written);
  if (typeof value === 'object') return Object.values(value).some(written);
  return true;
}

function stale(condition: Condition, object: StatusConventions): boolean {
  return condition.observedGeneration !== undefined && condition.observedGeneration < (object.metadata.generation ?? 0);
}

function said(condition: Condition): string {
  const reason = condition.reason ? `: ${condition.reason}` : '';
  return condition.message ? `${reason}: ${condition.message}` : reason;
}
