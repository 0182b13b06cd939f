// Every built-in health rule against its upstream project's own health test cases: Argo CD's
// resource_customizations/<group>/<kind>/health_test.yaml and testdata/ (copied as they are to
// test/fixtures/health/argocd/, see its README). Each case is judged as the tracker judges it
// once its controller answered kguard's write (a status written after the write), late enough
// that any grace a rule gives (afterSeconds) has passed. Healthy must be healthy and Degraded
// failed; Progressing must not be healthy or failed; where kguard decides otherwise, DIFFERENCES
// says why, case by case.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { judge } from '../../src/kinds/engine.js';
import { overridesOf } from '../../src/kinds/overrides.js';
import { judgingRow } from '../../src/kinds/table.js';
import type { KubeObject } from '../../src/objects/model.js';
import type { RolloutVerdict } from '../../src/model/verdict.js';
import { snapshotFrom } from '../fakes.js';

const root = fileURLToPath(new URL('../fixtures/health/argocd/', import.meta.url));

type ArgoStatus = 'Healthy' | 'Degraded' | 'Progressing' | 'Suspended';
const KGUARD: Record<Exclude<ArgoStatus, 'Suspended'>, RolloutVerdict['state']> = {
  Healthy: 'healthy',
  Degraded: 'failed',
  Progressing: 'progressing',
};

/**
 * Where kguard's verdict differs from Argo CD's, and why (file under the kind's folder → kguard's verdict).
 * Never a Healthy or Degraded case that kguard would wait on to the deadline.
 */
const DIFFERENCES: Record<string, { state: RolloutVerdict['state']; why: string }> = {
  // Argo CD's Suspended: a paused Rollout is half rolled out; kguard waits for its promotion.
  'argoproj.io/Rollout/testdata/suspended_controllerPause.yaml': { state: 'progressing', why: 'a pause waits' },
  'argoproj.io/Rollout/testdata/suspended_userPause.yaml': { state: 'progressing', why: 'a pause waits' },
  'argoproj.io/Rollout/testdata/suspended_v1.0_pausedRollout.yaml': { state: 'progressing', why: 'a pause waits' },
  // Argo CD's Suspended: KEDA paused with Ready True; the pause is the user's, nothing to wait for.
  'keda.sh/ScaledObject/testdata/keda-suspended.yaml': { state: 'healthy', why: 'a user pause is applied' },
  // Argo CD calls any Programmed not True Progressing; Gateway API's Programmed False Invalid is
  // the user's configuration, which no wait fixes (gateway_types.go GatewayReasonInvalid).
};

interface Case {
  file: string;
  expected: ArgoStatus;
}

function cases(): Case[] {
  const found: Case[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir)) {
      const full = path.join(dir, entry);
      if (statSync(full).isDirectory()) walk(full);
      else if (entry === 'health_test.yaml') {
        const tests = (parse(readFileSync(full, 'utf8')) as { tests: Array<Record<string, unknown>> }).tests;
        for (const test of tests) {
          const health = test.healthStatus as { status: ArgoStatus };
          found.push({
            file: path.relative(root, path.join(dir, test.inputPath as string)),
            expected: health.status,
          });
        }
      }
    }
  };
  walk(root);
  return found.sort((a, b) => a.file.localeCompare(b.file));
}

/** The verdict once the controller answered kguard's write: the status was written after it. */
function verdictOf(object: KubeObject, now = 60_000): RolloutVerdict {
  const overrides = overridesOf(object);
  const rules = judgingRow(object, overrides, undefined, [], { statusGraceMs: 30_000 }).rules(overrides);
  if (!rules) throw new Error(`${object.kind} is not watched`);
  const written = {
    ...object,
    metadata: { ...object.metadata, resourceVersion: 'at-kguard-write' },
    status: {},
  } as KubeObject;
  const live = { ...object, metadata: { ...object.metadata, resourceVersion: 'controller-answer' } } as KubeObject;
  const snapshot = snapshotFrom({ others: [live] });
  const seen = new Map<string, number>();
  // Twice: a failure a rule gives a grace (afterSeconds) is remembered at the first look.
  const first = judge(rules, { object: live, snapshot }, { applied: written }, seen, {
    now: 0,
    startedAt: 0,
    timeoutMs: 600_000,
  });
  if (first.state === 'failed') return first;
  const failure = rules.failure(live, snapshot, { applied: written });
  if (failure) seen.set(failure.reason, 0);
  return judge(rules, { object: live, snapshot }, { applied: written }, seen, {
    now,
    startedAt: 0,
    timeoutMs: 600_000,
  });
}

describe("built-in health rules agree with Argo CD's health checks", () => {
  const all = cases();

  it('reads every case of every built-in rule', () => {
    expect(all.length).toBeGreaterThanOrEqual(83);
  });

  it.each(all.map((test) => [test.file, test.expected] as const))('%s: Argo CD says %s', (file, expected) => {
    const object = parse(readFileSync(path.join(root, file), 'utf8')) as KubeObject;
    const verdict = verdictOf(object);
    const difference = DIFFERENCES[file];
    if (difference) {
      expect(verdict.state).toBe(difference.state);
      return;
    }
    expect(expected).not.toBe('Suspended');
    expect(verdict.state).toBe(KGUARD[expected as Exclude<ArgoStatus, 'Suspended'>]);
  });
});
