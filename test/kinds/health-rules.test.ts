// The built-in health rules (src/kinds/health/health-table.ts) on real-shaped statuses
// (test/fixtures/health/README.md names where each comes from): healthy, progressing and failed
// for every rule, judged by the shared engine as the tracker does.
import { describe, expect, it } from 'vitest';
import { judge } from '../../src/kinds/engine.js';
import { mergeHealthRules } from '../../src/kinds/health/health-rules.js';
import { BUILT_IN_HEALTH_RULES } from '../../src/kinds/health/health-table.js';
import { overridesOf } from '../../src/kinds/overrides.js';
import { judgingRow } from '../../src/kinds/table.js';
import type { HealthRule } from '../../src/model/health-rules.js';
import type { KubeObject } from '../../src/objects/model.js';
import type { RolloutVerdict } from '../../src/model/verdict.js';
import { expectationOf, snapshotFrom } from '../fakes.js';
import { fixture } from '../fixtures/load.js';

function verdictOf(
  object: KubeObject,
  options: { rules?: readonly HealthRule[]; now?: number; seen?: Map<string, number>; problems?: string[] } = {},
): RolloutVerdict {
  const row = judgingRow(object, overridesOf(object), options.rules ?? BUILT_IN_HEALTH_RULES, options.problems);
  const rules = row.rules(overridesOf(object));
  if (!rules) throw new Error(`${object.kind} is not watched`);
  const snapshot = snapshotFrom({ pods: [], others: [object] });
  return judge(rules, { object, snapshot }, expectationOf(object), options.seen ?? new Map(), {
    now: options.now ?? 1000,
    startedAt: 0,
    timeoutMs: 300_000,
  });
}

const health = (name: string): KubeObject => fixture(`health/${name}`);

describe('built-in health rules', () => {
  it.each([
    ['rollout-healthy', 'healthy'],
    ['rollout-paused', 'progressing'],
    ['rollout-progressing-generation', 'progressing'],
    ['rollout-degraded', 'failed'],
    ['externalsecret-ready', 'healthy'],
    ['externalsecret-new', 'progressing'],
    ['externalsecret-sync-error', 'failed'],
    ['clusterissuer-ready', 'healthy'],
    ['clusterissuer-failed', 'failed'],
    ['certificate-failed', 'failed'],
    ['helmrelease-ready', 'healthy'],
    ['helmrelease-progressing', 'progressing'],
    ['helmrelease-failed', 'failed'],
    ['ksvc-ready', 'healthy'],
    ['ksvc-progressing', 'progressing'],
    ['ksvc-failed', 'failed'],
    ['bucket-ready', 'healthy'],
    ['bucket-creating', 'progressing'],
    ['bucket-failed', 'failed'],
    ['gateway-programmed', 'healthy'],
    ['gateway-pending', 'progressing'],
    ['gateway-invalid', 'failed'],
    ['httproute-accepted', 'healthy'],
    ['httproute-no-parents', 'progressing'],
    ['httproute-backend-not-found', 'progressing'],
    ['scaledobject-ready', 'healthy'],
    ['scaledobject-new', 'progressing'],
    ['scaledobject-failed', 'failed'],
  ])('%s is %s', (name, state) => {
    expect(verdictOf(health(name)).state).toBe(state);
  });

  it('judges the cert-manager and Flux fixtures already in custom/ the same way', () => {
    expect(verdictOf(fixture('custom/certificate-issuing')).state).toBe('progressing');
    expect(verdictOf(fixture('custom/certificate-ready')).state).toBe('healthy');
    expect(verdictOf(fixture('custom/kustomization-ready')).state).toBe('healthy');
    expect(verdictOf(fixture('custom/kustomization-reconciling')).state).toBe('progressing');
    expect(verdictOf(fixture('custom/kustomization-stalled')).state).toBe('failed');
    expect(verdictOf(fixture('custom/kustomization-generation-behind')).state).toBe('progressing');
  });

  it('says why, in the controller words', () => {
    const failed = verdictOf(health('rollout-degraded'));
    expect(failed.state === 'failed' && failed.cause.source === 'condition' && failed.cause.reason).toBe(
      'RolloutAborted',
    );
    const paused = verdictOf(health('rollout-paused'));
    expect(paused.state === 'progressing' && paused.waitingFor).toBe(
      'phase Paused: CanaryPauseStep, waiting for its promotion',
    );
    // A missing backend may be the Service this apply creates: failed once it stays missing 30 s.
    const route = verdictOf(health('httproute-backend-not-found'), {
      seen: new Map([['BackendNotFound', 0]]),
      now: 30_000,
    });
    expect(route.state === 'failed' && route.cause.source === 'condition' && route.cause.message).toBe(
      'BackendNotFound: backend(web.shop.svc.cluster.local) not found',
    );
    expect(
      verdictOf(health('httproute-backend-not-found'), { seen: new Map([['BackendNotFound', 0]]), now: 29_000 }).state,
    ).toBe('progressing');
  });

  it('an Argo Rollout whose string observedGeneration is behind waits, whatever its phase says', () => {
    const verdict = verdictOf(health('rollout-progressing-generation'));
    expect(verdict.state === 'progressing' && verdict.waitingFor).toBe(
      'waiting for the Argo Rollouts controller to observe generation 4',
    );
  });

  it('an ExternalSecret with Ready=False SecretSyncedError fails at every look, whenever kguard first looked', () => {
    const object = health('externalsecret-sync-error');
    const verdicts = [0, 1000, 60_000, 299_000].flatMap((now) =>
      [new Map<string, number>(), new Map([['SecretSyncedError', 0]])].map(
        (seen) => verdictOf(object, { now, seen }).state,
      ),
    );
    expect(new Set(verdicts)).toEqual(new Set(['failed']));
  });

  it('a condition written for an older generation speaks for nothing', () => {
    const object = health('clusterissuer-failed');
    const newer = { ...object, metadata: { ...object.metadata, generation: 2 } };
    expect(verdictOf(newer).state).toBe('progressing');
  });
});

describe('choosing a rule', () => {
  const annotated = (object: KubeObject, annotations: Record<string, string>): KubeObject => ({
    ...object,
    metadata: { ...object.metadata, annotations },
  });

  it('kguard.dev/health: ignore is applied, never watched', () => {
    const row = judgingRow(
      health('externalsecret-sync-error'),
      overridesOf(annotated(health('externalsecret-sync-error'), { 'kguard.dev/health': 'ignore' })),
    );
    expect(
      row.unwatched(health('externalsecret-sync-error'), overridesOf(health('externalsecret-sync-error'))),
    ).toEqual({
      state: 'applied',
      detail: 'kguard.dev/health: "ignore": not judged',
    });
  });

  it('kguard.dev/health-rule picks a rule by id (a Crossplane claim in its own group)', () => {
    const claim = {
      ...health('bucket-failed'),
      apiVersion: 'platform.example.org/v1alpha1',
      kind: 'PostgreSQLInstance',
    } as KubeObject;
    // kstatus alone: no Ready condition, no Stalled: done, though Crossplane says it cannot sync.
    expect(verdictOf(claim).state).toBe('healthy');
    expect(verdictOf(annotated(claim, { 'kguard.dev/health-rule': 'crossplane.io/Claim' })).state).toBe('failed');
  });

  it('an unknown rule id is said, and the kind falls back to its match or kstatus', () => {
    const problems: string[] = [];
    verdictOf(annotated(health('scaledobject-failed'), { 'kguard.dev/health-rule': 'nope/Nothing' }), { problems });
    expect(problems).toEqual(['kguard.dev/health-rule: "nope/Nothing" names no health rule; kstatus judges it']);
  });

  it('a rule from --health-rules replaces the built-in one of the same id', () => {
    const lenient: HealthRule = {
      id: 'external-secrets.io/ExternalSecret',
      match: [{ group: 'external-secrets.io', kind: 'ExternalSecret' }],
      healthy: [{ condition: 'Ready' }],
    };
    const rules = mergeHealthRules(BUILT_IN_HEALTH_RULES, { rules: [lenient] });
    expect(rules.filter((rule) => rule.id === lenient.id)).toEqual([lenient]);
    expect(verdictOf(health('externalsecret-sync-error'), { rules }).state).toBe('healthy');
  });

  it('a failed match with afterSeconds waits that long from when it was first seen', () => {
    const rule: HealthRule = {
      id: 'x',
      match: [{ group: 'keda.sh', kind: 'ScaledObject' }],
      failed: [{ condition: 'Ready', status: 'False', afterSeconds: 30 }],
      healthy: [{ condition: 'Ready', status: 'True' }],
    };
    const object = health('scaledobject-failed');
    expect(
      verdictOf(object, { rules: [rule], now: 10_000, seen: new Map([['ScaledObjectCheckFailed', 0]]) }).state,
    ).toBe('progressing');
    expect(
      verdictOf(object, { rules: [rule], now: 30_000, seen: new Map([['ScaledObjectCheckFailed', 0]]) }).state,
    ).toBe('failed');
  });

  it('kinds with a row of their own keep it', () => {
    const problems: string[] = [];
    const row = judgingRow(
      { apiVersion: 'apps/v1', kind: 'Deployment' },
      { ...overridesOf({ metadata: { name: 'web' } }), healthRule: 'argoproj.io/Rollout' },
      BUILT_IN_HEALTH_RULES,
      problems,
    );
    expect(row.podSpecAt).toEqual(['spec', 'template', 'spec']);
    expect(problems).toEqual(['kguard.dev/health-rule: kguard judges Deployment by its own rules; ignored']);
  });
});

describe('rows corrected against upstream (fixtures: test/fixtures/health/README.md)', () => {
  it('a Certificate fails on Issuing False whatever its reason (a denied request too), but not on Issuing False "Issued" (ServerSideApply gate)', () => {
    const denied = verdictOf(health('certificate-denied'));
    expect(denied).toMatchObject({ state: 'failed', cause: { source: 'condition', reason: 'policy.cert-manager.io' } });
    expect(denied.state === 'failed' && denied.cause.source === 'condition' && denied.cause.message).toContain(
      'No policy approved this request',
    );
    expect(verdictOf(health('certificate-failed')).state).toBe('failed');
    expect(verdictOf(health('certificate-issued-ssa')).state).toBe('healthy');
  });

  it('a Crossplane managed resource fails on LastAsyncOperation False and Synced False ReconcileError, and is judged applied while paused (ReconcilePaused)', () => {
    const failed = verdictOf(health('resourcegroup-async-update-failed'));
    expect(failed).toMatchObject({ state: 'failed', cause: { source: 'condition', reason: 'ReconcileError' } });
    const paused = verdictOf(health('bucket-paused'));
    expect(paused).toMatchObject({
      state: 'healthy',
      progress: { summary: 'judged applied: ReconcilePaused (rule crossplane.io/Managed: nothing reconciles it)' },
    });
  });

  it('a suspended Flux Kustomization (spec.suspend, its observedGeneration left behind) is judged applied, not waited for', () => {
    expect(verdictOf(health('kustomization-suspended'))).toMatchObject({
      state: 'healthy',
      progress: { summary: 'judged applied: spec.suspend true (rule toolkit.fluxcd.io/Flux: nothing reconciles it)' },
    });
    expect(verdictOf(fixture('custom/kustomization-generation-behind')).state).toBe('progressing');
  });

  it('an Upbound ProviderConfig, which has no status, is healthy once applied', () => {
    expect(verdictOf(health('providerconfig-no-status'))).toMatchObject({ state: 'healthy' });
  });

  it('a Gateway fails on Programmed False AddressNotUsable', () => {
    expect(verdictOf(health('gateway-address-not-usable'))).toMatchObject({
      state: 'failed',
      cause: { source: 'condition', reason: 'AddressNotUsable' },
    });
  });

  it('an HTTPRoute fails on Accepted False IncompatibleFilters', () => {
    expect(verdictOf(health('httproute-incompatible-filters'))).toMatchObject({
      state: 'failed',
      cause: { source: 'condition', reason: 'IncompatibleFilters' },
    });
  });
});
