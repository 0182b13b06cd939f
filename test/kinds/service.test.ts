// A Service is judged by its selector (kinds/network/service.ts, after krane's Service#deploy_succeeded?):
// done once it matches a pod, failed after a grace when it matches none.
import { describe, expect, it } from 'vitest';
import type { Pod } from '../../src/kube.js';
import { judge, rememberSeen } from '../../src/kinds/engine.js';
import { NO_OVERRIDES } from '../../src/kinds/overrides.js';
import { NO_POD_GRACE_SECONDS } from '../../src/kinds/network/service.js';
import { rowFor } from '../../src/kinds/table.js';
import type { KubeObject } from '../../src/objects/model.js';
import { expectationOf, snapshotFrom } from '../fakes.js';
import { fixture } from '../fixtures/load.js';

const service = fixture<KubeObject>('services/web');
const typo = { ...service, spec: { ...(service['spec'] as object), selector: { app: 'wbe' } } } as KubeObject;
const rules = rowFor(service).rules(NO_OVERRIDES)!;

function look(applied: KubeObject, others: unknown[], now: number, seen = new Map<string, number>()) {
  const snapshot = snapshotFrom({
    pods: others.filter((object) => (object as KubeObject).kind === 'Pod'),
    others: [applied, ...others.filter((object) => (object as KubeObject).kind !== 'Pod')],
  });
  const verdict = judge(rules, { object: applied, snapshot }, expectationOf(applied), seen, {
    now,
    startedAt: 0,
    timeoutMs: 300_000,
  });
  return {
    verdict,
    seen: rememberSeen(rules, seen, verdict, now, { object: applied, snapshot }, expectationOf(applied)),
  };
}

describe('Service', () => {
  it("is done once its selector matches a pod of its namespace, whatever that pod's state", () => {
    expect(look(service, [fixture<Pod>('pods/running-ready')], 1000).verdict).toMatchObject({
      state: 'healthy',
      progress: { summary: 'selects 1 pod' },
    });
    expect(look(service, [fixture<Pod>('pods/image-pull-backoff')], 1000).verdict.state).toBe('healthy');
  });

  it('waits while its selector matches no pod, then fails after the grace, saying which selector', () => {
    const pods = [fixture<Pod>('pods/running-ready')];
    const first = look(typo, pods, 1000);
    expect(first.verdict).toMatchObject({
      state: 'progressing',
      waitingFor: 'waiting for its selector app=wbe to match a pod in namespace shop',
    });
    const still = look(typo, pods, 1000 + (NO_POD_GRACE_SECONDS - 1) * 1000, first.seen);
    expect(still.verdict.state).toBe('progressing');
    const failed = look(typo, pods, 1000 + NO_POD_GRACE_SECONDS * 1000, still.seen).verdict;
    expect(failed).toMatchObject({
      state: 'failed',
      cause: {
        source: 'condition',
        reason: 'SelectsNoPods',
        message: 'its selector app=wbe matches no pod in namespace shop',
      },
    });
  });

  it('is done with no pod when it exposes a Deployment scaled to 0 (krane: exposes_zero_replica_workload?)', () => {
    const deployment = fixture<KubeObject>('deployments/complete');
    const scaledToZero = { ...deployment, spec: { ...(deployment['spec'] as object), replicas: 0 } };
    const forIt = { ...service, spec: { ...(service['spec'] as object), selector: { app: 'web' } } } as KubeObject;
    expect(look(forIt, [scaledToZero], 1000).verdict.state).toBe('healthy');
  });

  it('has nothing to watch without a selector, or as an ExternalName', () => {
    const { selector: _selector, ...withoutSelector } = service['spec'] as Record<string, unknown>;
    expect(
      rowFor(service).unwatched({ ...service, spec: withoutSelector } as KubeObject, NO_OVERRIDES)?.detail,
    ).toContain('no selector');
    expect(
      rowFor(service).unwatched(
        { ...service, spec: { type: 'ExternalName', externalName: 'db.example.com' } } as KubeObject,
        NO_OVERRIDES,
      )?.detail,
    ).toContain('ExternalName');
    expect(rowFor(service).unwatched(service, NO_OVERRIDES)).toBeUndefined();
  });
});
