// The shared engine judging a Deployment, in the shape the Deployment tests read: one call with
// the Deployment, its ReplicaSets and pods, as one look would have read them.
import type { Clues } from '../../src/classify/clues.js';
import { deploymentRules } from '../../src/kinds/workloads/deployment.js';
import { judge, rememberSeen } from '../../src/kinds/engine.js';
import type { Deployment, Pod, ReplicaSet } from '../../src/kube.js';
import type { Expectation, FirstSeen, Moment, RolloutVerdict } from '../../src/model/verdict.js';
import type { KubeObject } from '../../src/objects/model.js';
import { expectationOf, snapshotFrom } from '../fakes.js';

export { expectationOf };

export interface DeploymentLook {
  deployment: Deployment | undefined;
  replicaSets: readonly ReplicaSet[];
  pods: readonly Pod[];
  clues?: Clues;
}

function observationOf(look: DeploymentLook) {
  return {
    object: look.deployment as unknown as KubeObject | undefined,
    snapshot: snapshotFrom({
      deployments: look.deployment ? [look.deployment] : [],
      replicaSets: look.replicaSets,
      pods: look.pods,
    }),
    clues: look.clues,
  };
}

export function verdictFor(
  look: DeploymentLook,
  expected: Expectation,
  firstSeen: FirstSeen,
  moment: Moment,
): RolloutVerdict {
  return judge(deploymentRules, observationOf(look), expected, firstSeen, moment);
}

export function rememberFindings(
  firstSeen: FirstSeen,
  verdict: RolloutVerdict,
  now: number,
  deployment?: Deployment,
  pods: readonly Pod[] = [],
  replicaSets: readonly ReplicaSet[] = [],
): Map<string, number> {
  return rememberSeen(
    deploymentRules,
    firstSeen,
    verdict,
    now,
    observationOf({ deployment, replicaSets, pods }),
    expectationOf(deployment),
  );
}
