// What the scheduler's FitError message says: no room (may heal) or no node that could ever take
// the pod (a constraint of the pod itself). Pure.
//
// Format (kube-scheduler schedule_one.go FitError.Error()): `0/3 nodes are available: 1 Insufficient
// cpu, 2 node(s) didn't match Pod's node affinity/selector. preemption: 0/3 nodes are available: …`;
// each entry is "<node count> <plugin reason>". Reasons (pkg/scheduler/framework/plugins):
// noderesources `Insufficient %v`, `Too many pods`; nodeaffinity `node(s) didn't match Pod's node
// affinity/selector`; tainttoleration `node(s) had untolerated taint {%s: %s}` (key: value);
// interpodaffinity `node(s) didn't match pod affinity rules`, `node(s) didn't match pod anti-affinity
// rules`, `node(s) didn't satisfy existing pods anti-affinity rules`; volumebinding `node(s) had volume
// node affinity conflict`; nodeunschedulable `node(s) were unschedulable`.

export type SchedulingProblem = 'capacity' | 'constraint';

const CONSTRAINTS: readonly RegExp[] = [
  /didn't match Pod's node affinity\/selector/,
  /didn't match node selector/, // before 1.19
  /didn't match the requested node name/,
  /didn't match pod (anti-)?affinity rules/,
  /didn't satisfy existing pods anti-affinity rules/,
  /had volume node affinity conflict/,
];

// Taints the node lifecycle controller and the cloud provider set while a node is not ready yet,
// or under pressure: they go away by themselves.
const PASSING_TAINT =
  /^\{(node\.kubernetes\.io\/|node\.cloudprovider\.kubernetes\.io\/|ToBeDeletedByClusterAutoscaler)/;

/** A constraint only if every node is ruled out by one; any node short of room may free up. */
export function judgeSchedulingMessage(message: string): SchedulingProblem {
  const reasons = fitReasons(message);
  if (reasons.length === 0) return 'capacity';
  return reasons.every(isConstraint) ? 'constraint' : 'capacity';
}

/** The plugin reasons of a FitError message, without node counts ("Insufficient cpu", ...). */
export function fitReasons(message: string): string[] {
  const match = /nodes are available: (.*?)(?:\.\s*preemption:|\.?\s*$)/.exec(message);
  if (!match?.[1]) return [];
  return match[1]
    .split(/, (?=\d+ )/)
    .map((entry) => entry.replace(/^\d+ /, '').trim())
    .filter((entry) => entry !== '');
}

function isConstraint(reason: string): boolean {
  const taint = /had untolerated taint (\{.*\})/.exec(reason);
  if (taint?.[1]) return !PASSING_TAINT.test(taint[1]);
  return CONSTRAINTS.some((pattern) => pattern.test(reason));
}
