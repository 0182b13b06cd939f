// CustomResourceDefinition: done when the API server has Established it, i.e. serves its kind
// (kstatus crdConditions, sigs.k8s.io/cli-utils/pkg/kstatus/status/core.go: Established True is
// Current; NamesAccepted False, or Established False for another reason than Installing, is
// Failed). Objects of its kind are applied only then (run/apply/phases.ts): before it, kubectl cannot
// even map them ("no matches for kind").
import { conditionOf, type StatusConventions } from '../kube.js';
import type { ReasonRule } from '../model/findings.js';
import type { RolloutRules } from './engine.js';

/** apiextensions-apiserver's naming controller: NamesAccepted False (a plural or kind another CRD of the group uses). */
const NOT_ESTABLISHED: ReasonRule = {
  category: 'stalled',
  family: 'other',
  policy: { when: 'now' },
  cannot: 'be established (the API server does not serve its kind)',
  nextStep:
    'read its status conditions: kubectl get crd NAME -o yaml (names that another CRD of the group already uses are refused)',
};

export const crdRules: RolloutRules<StatusConventions> = {
  controller: 'apiextensions-apiserver',
  observed: () => true,
  newPods: () => [],
  wait(crd) {
    const established = conditionOf(crd, 'Established');
    if (established?.status === 'True') return undefined;
    return `waiting for the API server to establish it${established?.message ? ` (${established.message})` : ''}`;
  },
  failure(crd) {
    const names = conditionOf(crd, 'NamesAccepted');
    if (names?.status === 'False')
      return {
        source: 'condition',
        reason: names.reason ?? 'NamesNotAccepted',
        message: names.message ?? '',
        rule: NOT_ESTABLISHED,
      };
    const established = conditionOf(crd, 'Established');
    if (established?.status === 'False' && established.reason !== 'Installing') {
      return {
        source: 'condition',
        reason: established.reason ?? 'NotEstablished',
        message: established.message ?? '',
        rule: NOT_ESTABLISHED,
      };
    }
    return undefined;
  },
  progress(crd) {
    const established = conditionOf(crd, 'Established');
    return {
      desired: 0,
      updated: 0,
      ready: 0,
      available: 0,
      summary: established?.status === 'True' ? 'Established' : 'not Established yet',
    };
  },
};
