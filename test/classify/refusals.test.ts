// A workload's failing condition, told by what its message says (#45): a PodSecurity refusal is
// final and names its policy; a quota refusal can clear and keeps its grace and its quota step.
import { describe, expect, it } from 'vitest';
import { diagnose } from '../../src/classify/diagnosis.js';
import { conditionRuleFor } from '../../src/classify/table.js';

// As the replicaset controller copies the API server's refusal into ReplicaFailure (FailedCreate):
// the PodSecurity admission's text (k8s.io/pod-security-admission admission/admission.go).
const podSecurity =
  'pods "web-6d4cf56db6-x7k2p" is forbidden: violates PodSecurity "restricted:latest": allowPrivilegeEscalation != false (container "web" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "web" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "web" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "web" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")';
// The ResourceQuota admission's text (plugin/pkg/admission/resourcequota/controller.go).
const quota =
  'pods "web-6d4cf56db6-x7k2p" is forbidden: exceeded quota: pods, requested: pods=1, used: pods=4, limited: pods=4';

describe('conditionRuleFor', () => {
  it('a PodSecurity refusal fails at once and names the policy, not a ResourceQuota', () => {
    const rule = conditionRuleFor('FailedCreate', podSecurity);
    expect(rule?.policy).toEqual({ when: 'now' });
    expect(rule?.cannot).toBe(
      'create its pods: the namespace\'s PodSecurity policy "restricted:latest" refuses their template',
    );
    expect(rule?.nextStep).toContain('meet the "restricted:latest" Pod Security Standard');
    expect(rule?.nextStep).not.toContain('resourcequota');
  });

  it('a quota refusal keeps its 30 s grace (a pod may end) and its quota step', () => {
    const rule = conditionRuleFor('FailedCreate', quota);
    expect(rule?.policy).toEqual({ when: 'after', seconds: 30 });
    expect(rule?.nextStep).toContain('kubectl describe resourcequota');
  });
});

describe('diagnose, for a kind without pods', () => {
  it('a custom resource that timed out "did not become ready", with no word of pods', () => {
    const diagnosis = diagnose(
      { state: 'timed-out', waitingFor: 'condition Ready to be True', findings: [] } as never,
      [],
      { apiVersion: 'cert-manager.io/v1', kind: 'Certificate', namespace: 'shop', name: 'web-tls' },
    );
    expect(diagnosis?.summary).toBe('it did not become ready in time (at the deadline: condition Ready to be True)');
    const deployment = diagnose(
      { state: 'timed-out', waitingFor: '1 of 2 new pods ready', findings: [] } as never,
      [],
      { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'shop', name: 'web' },
    );
    expect(deployment?.summary).toBe('new pods did not become ready in time (at the deadline: 1 of 2 new pods ready)');
  });
});
