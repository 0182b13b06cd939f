import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/objects/model.js';
import { manualRestore } from '../../src/restore/manual.js';
import type { RollbackMode } from '../../src/model/result.js';
import { type PlannedObject, roundOf, planRestore, restoreRounds } from '../../src/restore/plan.js';
import { deployment } from '../fixtures/load.js';
import { planned } from './planned.js';

const web = deployment('complete') as unknown as KubeObject;
const webApplied: KubeObject = { ...web, metadata: { ...web.metadata, generation: 12, resourceVersion: '900' } };
const configMap = (data: Record<string, string>, uid = 'cm-uid', rv = '10'): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'settings', namespace: 'shop', uid, resourceVersion: rv },
  data,
});
const crd: KubeObject = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'x.example.com', uid: 'crd' },
};
const widget: KubeObject = {
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: { name: 'w', namespace: 'shop', uid: 'w' },
  spec: { size: 1 },
};
const job: KubeObject = {
  apiVersion: 'batch/v1',
  kind: 'Job',
  metadata: { name: 'migrate', namespace: 'shop', uid: 'job' },
};
const changed = (object: KubeObject): KubeObject => ({
  ...object,
  metadata: { ...object.metadata, labels: { changed: 'yes' } },
});
/** The plan of a run with the usual options: --rollback all (or the mode given), created objects deleted. */
const plan = (objects: readonly PlannedObject[], mode: RollbackMode = 'all') =>
  planRestore(objects, mode, { keepCreated: false });
/** Each round as `round: Kind action` lines, in order. */
const roundsText = (rounds: ReturnType<typeof restoreRounds>) =>
  rounds.map((round) => round.map((step) => `${roundOf(step)}: ${step.ref.kind} ${step.action}`));

describe('planRestore', () => {
  it('plans nothing when nothing failed', () => {
    expect(plan([planned(web, webApplied, 'healthy')])).toEqual([]);
  });

  it('puts back every object the apply changed, configuration before workloads', () => {
    const failedWeb = { ...webApplied, spec: { ...(webApplied.spec as object), replicas: 5 } };
    const steps = plan([
      planned(web, failedWeb, 'failed'),
      planned(configMap({ a: '1' }), configMap({ a: '2' }, 'cm-uid', '11'), 'applied'),
    ]);
    expect(steps.map((step) => [step.ref.kind, step.action])).toEqual([
      ['ConfigMap', 'put-back'],
      ['Deployment', 'put-back'],
    ]);
    expect(steps[1]).toMatchObject({ before: web });
  });

  it('restores every changed object when a check or the bake failed, though every workload was healthy, even with --rollback failed', () => {
    const objects = [
      planned(web, { ...webApplied, spec: { replicas: 9 } }, 'healthy'),
      planned(configMap({ a: '1' }), configMap({ a: '2' }), 'applied'),
    ];
    for (const mode of ['all', 'failed'] as const) {
      expect(
        planRestore(objects, mode, { keepCreated: false, failedAsUnit: true }).map((step) => [
          step.ref.kind,
          step.action,
        ]),
      ).toEqual([
        ['ConfigMap', 'put-back'],
        ['Deployment', 'put-back'],
      ]);
    }
    expect(
      planRestore(objects, 'none', { keepCreated: false, failedAsUnit: true }).every((step) => step.action === 'keep'),
    ).toBe(true);
  });

  it('leaves untouched an object the apply did not change', () => {
    const steps = plan([
      planned(web, { ...webApplied, spec: { replicas: 9 } }, 'failed'),
      planned(configMap({ a: '1' }), configMap({ a: '1' }), 'applied'),
    ]);
    expect(steps.map((step) => step.ref.kind)).toEqual(['Deployment']);
  });

  it('restores only the failing objects with --rollback failed', () => {
    const steps = plan(
      [
        planned(web, { ...webApplied, spec: { replicas: 9 } }, 'failed'),
        planned(configMap({ a: '1' }), configMap({ a: '2' }), 'applied'),
      ],
      'failed',
    );
    expect(steps.map((step) => [step.ref.kind, step.action, step.action === 'keep' ? step.reason : ''])).toEqual([
      ['ConfigMap', 'keep', 'not-failed'],
      ['Deployment', 'put-back', ''],
    ]);
  });

  it('deletes what the apply created, by the uid it got, newest first', () => {
    const service: KubeObject = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'web', namespace: 'shop', uid: 'svc-uid' },
    };
    const created = { ...configMap({ a: '1' }, 'new-cm') };
    const steps = plan([
      planned(undefined, created, 'applied'),
      planned(undefined, service, 'applied'),
      planned(web, { ...webApplied, spec: {} }, 'failed'),
    ]);
    expect(steps.map((step) => [step.ref.kind, step.action])).toEqual([
      ['Deployment', 'put-back'],
      ['Service', 'delete'],
      ['ConfigMap', 'delete'],
    ]);
  });

  it('never deletes a Namespace, CRD or PersistentVolumeClaim, nor anything with --keep-created', () => {
    const namespace: KubeObject = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop', uid: 'ns' } };
    const pvc: KubeObject = {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'data', namespace: 'shop', uid: 'pvc' },
    };
    const failing = planned(undefined, webApplied, 'failed');
    const steps = plan([planned(undefined, namespace), planned(undefined, pvc), planned(undefined, crd), failing]);
    expect(steps.map((step) => (step.action === 'keep' ? step.reason : step.action))).toEqual([
      'delete',
      'protected-kind',
      'protected-kind',
      'protected-kind',
    ]);
    const kept = planRestore([failing], 'all', { keepCreated: true });
    expect(kept).toMatchObject([{ action: 'keep', reason: 'keep-created' }]);
  });

  it('never writes an object someone else changed while kguard watched', () => {
    const steps = plan([
      planned(web, { ...webApplied, spec: {} }, 'conflict'),
      planned(configMap({ a: '1' }), configMap({ a: '2' }), 'failed'),
    ]);
    expect(steps.map((step) => [step.ref.kind, step.action])).toEqual([
      ['ConfigMap', 'put-back'],
      ['Deployment', 'keep'],
    ]);
  });

  it('groups the restore in rounds: definitions, configuration, workloads, then deletes of workloads before the rest', () => {
    const namespace: KubeObject = {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'shop', uid: 'ns', labels: { team: 'a' } },
    };
    const service: KubeObject = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'web', namespace: 'shop', uid: 'svc' },
    };
    const steps = plan([
      planned(web, changed(web), 'failed'),
      planned(widget, changed(widget)),
      planned(undefined, service),
      planned(namespace, changed(namespace)),
      planned(undefined, job),
      planned(configMap({ a: '1' }), configMap({ a: '2' })),
      planned(crd, changed(crd)),
    ]);
    expect(roundsText(restoreRounds(steps))).toEqual([
      ['definitions: Namespace put-back', 'definitions: CustomResourceDefinition put-back'],
      ['configuration: Widget put-back', 'configuration: ConfigMap put-back'],
      ['workloads: Deployment put-back'],
      ['delete workloads: Job delete'],
      ['delete the rest: Service delete'],
    ]);
    // The flat plan is the rounds in order.
    expect(steps).toEqual(restoreRounds(steps).flat());
  });

  it('undoes an apply made in phases the last phase first, each phase in its own order', () => {
    const steps = plan([
      planned(crd, changed(crd)),
      planned(undefined, job),
      planned(web, changed(web), 'failed'),
      planned(widget, changed(widget)),
    ]);
    // The phases as run/apply/phases.ts numbers them: definitions 0, pre 1, main 2.
    const stages = new Map([
      ['apiextensions.k8s.io/CustomResourceDefinition//x.example.com', 0],
      ['batch/Job/shop/migrate', 1],
      ['apps/Deployment/shop/web', 2],
      ['example.com/Widget/shop/w', 2],
    ]);
    expect(roundsText(restoreRounds(steps, stages))).toEqual([
      ['configuration: Widget put-back'],
      ['workloads: Deployment put-back'],
      ['delete workloads: Job delete'],
      ['definitions: CustomResourceDefinition put-back'],
    ]);
  });

  it('creates again an object the apply deleted (--prune)', () => {
    const steps = plan([
      planned(configMap({ a: '1' }), undefined),
      planned(web, { ...webApplied, spec: {} }, 'failed'),
    ]);
    expect(steps[0]).toMatchObject({
      action: 'recreate',
      before: configMap({ a: '1' }),
      copy: { metadata: { name: 'settings', namespace: 'shop' }, data: { a: '1' } },
    });
    expect(steps[0]).not.toHaveProperty('copy.metadata.uid');
  });

  it('with --rollback none keeps everything and says how to restore it by hand', () => {
    const [step] = plan([planned(configMap({ a: '1' }), configMap({ a: '2' }), 'failed')], 'none');
    expect(step).toMatchObject({ action: 'keep', reason: 'no-rollback' });
    expect(
      manualRestore(step!).commands((args) => ['kubectl', ...args].join(' '), '/tmp/k/configmap-shop-settings.json'),
    ).toEqual(['kubectl replace -f /tmp/k/configmap-shop-settings.json']);
  });

  it('gives the exact delete command for a created object that is kept', () => {
    const [step] = planRestore([planned(undefined, webApplied, 'failed')], 'all', { keepCreated: true });
    expect(manualRestore(step!).commands((args) => ['kubectl', ...args].join(' '))).toEqual([
      'kubectl delete deployment.apps/web -n shop',
    ]);
  });
});
