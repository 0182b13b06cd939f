// The HPA's pure rules (pkg/controller/podautoscaler/horizontal.go): how a metric is named in
// its conditions and event reasons, and how the metric's proposal is limited by the default
// behavior and by min/max (normalizeDesiredReplicasWithBehaviors, convertDesiredReplicasWithBehaviorRate,
// stabilizeRecommendationWithBehaviors), with the ScalingLimited condition it sets.

export interface Recommendation {
  at: number;
  replicas: number;
}

export interface Limited {
  replicas: number;
  limited: boolean;
  reason: string;
  message: string;
  /** The scale-down stabilization window kept the count higher than proposed. */
  stabilized: boolean;
}

type MetricSpec = {
  type?: string;
  resource?: { name?: string; target?: { type?: string } };
  containerResource?: { name?: string; target?: { type?: string } };
  pods?: { metric?: { name?: string } };
  object?: { describedObject?: { kind?: string }; metric?: { name?: string } };
  external?: { metric?: { name?: string; selector?: unknown } };
};

/** computeReplicasForMetric's metricNameProposal for the first metric (autoscaling/v2 defaults to CPU at 80 %). */
export function describeMetric(metrics: MetricSpec[] | undefined): string {
  const metric = metrics?.[0] ?? { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization' } } };
  switch (metric.type) {
    case 'Pods':
      return `pods metric ${metric.pods?.metric?.name ?? ''}`;
    case 'Object':
      return `${metric.object?.describedObject?.kind ?? ''} metric ${metric.object?.metric?.name ?? ''}`;
    case 'External':
      return `external metric ${metric.external?.metric?.name ?? ''}(${metric.external?.metric?.selector ? JSON.stringify(metric.external.metric.selector) : 'nil'})`;
    case 'ContainerResource':
      return `${metric.containerResource?.name ?? ''} container resource utilization (percentage of request)`;
    default:
      return metric.resource?.target?.type === 'AverageValue'
        ? `${metric.resource?.name ?? ''} resource`
        : `${metric.resource?.name ?? 'cpu'} resource utilization (percentage of request)`;
  }
}

/**
 * The default behavior: scale up by at most max(100 %, 4 pods) a period (ScaleUpLimit), scale down
 * to no less than the highest recommendation of the last 300 s, then min/max.
 */
export function limitedBy(
  proposal: number,
  current: number,
  min: number,
  max: number,
  history: Recommendation[],
): Limited {
  let replicas = proposal;
  let stabilized = false;
  if (replicas < current) {
    const highest = Math.max(...history.map((entry) => entry.replicas));
    if (highest > replicas) {
      replicas = Math.min(current, highest);
      stabilized = true;
    }
  }
  const limit = (to: number, reason: string, message: string): Limited => ({
    replicas: to,
    limited: true,
    reason,
    message,
    stabilized,
  });
  // convertDesiredReplicasWithBehaviorRate: the lower of max and the rate limit is what limits.
  const scaleUpLimit = Math.max(2 * current, current + 4);
  if (replicas > current && replicas > scaleUpLimit && max > scaleUpLimit)
    return limit(
      scaleUpLimit,
      'ScaleUpLimit',
      'the desired replica count is increasing faster than the maximum scale rate',
    );
  if (replicas > max)
    return limit(max, 'TooManyReplicas', 'the desired replica count is more than the maximum replica count');
  if (replicas < min)
    return limit(min, 'TooFewReplicas', 'the desired replica count is less than the minimum replica count');
  return {
    replicas,
    limited: false,
    reason: 'DesiredWithinRange',
    message: 'the desired count is within the acceptable range',
    stabilized,
  };
}
