// Runs started together on overlapping objects, through the real kubectl against kube-sim: two
// runs that share an object are never inside their leases at the same time, each run's "before"
// is what the run before it on that object left, every run ends as it should, and no Lease is left.
//
// What is observable from outside: the simulator's change feed, in the order the API server
// committed the writes. A run is inside from the creation of its journal (it has gone ahead: the
// journal comes after the leases and the snapshot) to the deletion of its Lease (its release); its
// objects are those its Lease lists. Each run writes its own value, so every ConfigMap write says
// which run made it, and each journal holds the "before" the run read under its Lease.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readJournalSecret } from '../../src/journal/journal.js';
import { decodeKeys, OBJECTS_ANNOTATION } from '../../src/journal/lease.js';
import type { KubeObject } from '../kube-sim/types.js';
import { eventually, sandbox, type KguardRun, type Sandbox } from './harness.js';
import { configMapYaml } from './manifests.js';

let env: Sandbox;
beforeEach(async () => {
  // ConfigMaps need no controllers; a fast simulated clock.
  env = await sandbox({ timeScale: 50, controllers: false });
});
afterEach(async () => {
  await env.stop();
});

interface Change {
  seq: number;
  type: string;
  object: KubeObject;
}

/** Every committed write of Leases, journals and ConfigMaps, in commit order. */
function recordChanges(): Change[] {
  const changes: Change[] = [];
  env.cluster.store.subscribe((event) => {
    if (['Lease', 'Secret', 'ConfigMap'].includes(event.object.kind))
      changes.push({ seq: changes.length, type: event.type, object: event.object });
  });
  return changes;
}

interface Inside {
  runId: string;
  value: string;
  keys: string[];
  from: number;
  to: number;
  /** What the run's journal recorded as each object's "before": the value of the run that wrote it last. */
  before: Map<string, string | null>;
}

/** Each run that went ahead: when it was inside, on what, with which "before". */
function insides(changes: readonly Change[], runs: ReadonlyMap<string, string>): Inside[] {
  return [...runs].map(([runId, value]) => {
    const journal = changes.find(
      (change) =>
        change.type === 'ADDED' &&
        change.object.kind === 'Secret' &&
        change.object.metadata.name === `${runId}-journal`,
    );
    const leases = changes.filter((change) => change.object.kind === 'Lease' && change.object.metadata.name === runId);
    const released = leases.filter((change) => change.type === 'DELETED').at(-1);
    if (!journal || !released) throw new Error(`run ${runId} has no journal or no released Lease`);
    const keys = decodeKeys(released.object.metadata.annotations?.[OBJECTS_ANNOTATION]) ?? [];
    const before = new Map(
      readJournalSecret(journal.object).objects.map((entry) => [
        `/${entry.ref.kind}/${entry.ref.namespace}/${entry.ref.name}`,
        (entry.before?.['data'] as { run?: string } | undefined)?.run ?? null,
      ]),
    );
    return { runId, value, keys, from: journal.seq, to: released.seq, before };
  });
}

/** Pairs of runs on a shared object that were inside at the same time. */
function overlapping(inside: readonly Inside[]): string[] {
  const found: string[] = [];
  for (const [index, first] of inside.entries()) {
    for (const second of inside.slice(index + 1)) {
      const shared = first.keys.filter((key) => second.keys.includes(key));
      if (shared.length > 0 && first.from < second.to && second.from < first.to)
        found.push(`${first.value} and ${second.value} on ${shared.join(', ')}`);
    }
  }
  return found;
}

/** Each run's "before" of each object is the value of the run inside on it just before (none: the object was new). */
function wrongBefores(inside: readonly Inside[]): string[] {
  const wrong: string[] = [];
  const last = new Map<string, string | null>();
  for (const run of [...inside].sort((left, right) => left.from - right.from)) {
    for (const key of run.keys) {
      const expected = last.get(key) ?? null;
      if (run.before.get(key) !== expected)
        wrong.push(`${run.value} read ${key} as ${run.before.get(key)}, not ${expected}`);
      last.set(key, run.value);
    }
  }
  return wrong;
}

/** Every ConfigMap write of a run lies inside it. */
function writesOutside(changes: readonly Change[], inside: readonly Inside[]): string[] {
  return changes
    .filter((change) => change.object.kind === 'ConfigMap')
    .flatMap((change) => {
      const value = (change.object['data'] as { run?: string } | undefined)?.run;
      const run = inside.find((candidate) => candidate.value === value);
      return run && run.from < change.seq && change.seq < run.to
        ? []
        : [`${change.type} of ${change.object.metadata.name} by ${value} at ${change.seq}`];
    });
}

/** The run id a run said when it wrote its journal (it went in); undefined when it did not. */
function runIdOf(run: KguardRun): string | undefined {
  return /^(?:• )?run (kguard-\S+): pre-apply copies journalled/m.exec(run.output)?.[1];
}

/** The 20 ways to pick 3 of 6. */
function triples<T>(items: readonly T[]): T[][] {
  const picked: T[][] = [];
  for (let first = 0; first < items.length; first += 1)
    for (let second = first + 1; second < items.length; second += 1)
      for (let third = second + 1; third < items.length; third += 1)
        picked.push([items[first]!, items[second]!, items[third]!]);
  return picked;
}

describe('runs started together on overlapping objects', () => {
  it('20 runs, each on 3 of 6 ConfigMaps: never two on one object at once, each "before" is what the previous run left, all exit 0, no Lease left', {
    timeout: 120_000,
  }, async () => {
    // About 40 s on two busy cores, most of it twenty kguard processes starting at once; the
    // timeout leaves room for a machine busier still.
    const changes = recordChanges();
    const names = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot'];
    const picks = triples(names);
    expect(picks).toHaveLength(20);
    const files = await Promise.all(
      picks.map((pick, index) =>
        env.write(`run-${index}.yaml`, pick.map((name) => configMapYaml(name, { run: `run-${index}` })).join('---\n')),
      ),
    );
    const runs = await Promise.all(
      files.map((file) => env.kguard(['apply', '-f', file, '-o', 'json', '--lock-timeout', '100s'])),
    );

    for (const run of runs) expect(run.exitCode, run.output).toBe(0);
    const runIds = new Map(runs.map((run, index) => [runIdOf(run) ?? `(no run id for run-${index})`, `run-${index}`]));
    expect(runIds.size).toBe(20);
    const inside = insides(changes, runIds);
    expect(overlapping(inside)).toEqual([]);
    expect(wrongBefores(inside)).toEqual([]);
    expect(writesOutside(changes, inside)).toEqual([]);
    // They did meet: some waited for others.
    expect(runs.filter((run) => run.output.includes('another kguard run holds it')).length).toBeGreaterThan(0);
    expect(env.cluster.store.list('Lease')).toEqual([]);
    expect(env.cluster.store.list('Secret').filter((secret) => secret.metadata.name.endsWith('-journal'))).toEqual([]);
  });

  it('behind a run that holds the object: runs with a short --lock-timeout give up naming it (exit 2) and leave nothing; the others go in one at a time once it lets go', async () => {
    const changes = recordChanges();
    // A run of another kguard holds the ConfigMap (its Lease, renewed by the test) until told.
    const { runLeases } = await import('../../src/journal/lease.js');
    const [holding] = runLeases('kguard-holder', 'default', ['/ConfigMap/default/shared'], 30, new Date());
    env.cluster.store.create(holding as KubeObject);
    const renewing = setInterval(() => {
      const live = env.cluster.store.get('Lease', 'default', 'kguard-holder');
      if (live)
        env.cluster.store.update({
          ...live,
          metadata: {
            ...live.metadata,
            annotations: { ...live.metadata.annotations, 'example.com/renewed': String(Date.now()) },
          },
        });
    }, 2000);
    try {
      const started = await Promise.all(
        Array.from({ length: 8 }, async (_, index) => {
          const file = await env.write(`run-${index}.yaml`, configMapYaml('shared', { run: `run-${index}` }));
          return env.kguardProcess(['apply', '-f', file, '--lock-timeout', index < 4 ? '1s' : '100s']);
        }),
      );
      const [short, long] = [started.slice(0, 4), started.slice(4)];
      const gaveUp = await Promise.all(short.map((run) => run.done));
      await eventually(
        () => (long.every((run) => run.output().includes('another kguard run holds it')) ? true : undefined),
        60_000,
      );
      clearInterval(renewing);
      env.cluster.store.delete('Lease', 'default', 'kguard-holder');
      const wentIn = await Promise.all(long.map((run) => run.done));

      for (const run of gaveUp) {
        expect(run.exitCode, run.output).toBe(2);
        expect(run.stderr).toMatch(
          /configmap\/shared \(namespace default\) is held by another kguard run \(kguard-holder\); waited 1s \(--lock-timeout\)/,
        );
        expect(runIdOf(run)).toBeUndefined();
      }
      for (const run of wentIn) expect(run.exitCode, run.output).toBe(0);
      const inside = insides(
        changes,
        new Map(wentIn.map((run, index) => [runIdOf(run) ?? `(no run id for run-${index + 4})`, `run-${index + 4}`])),
      );
      expect(overlapping(inside)).toEqual([]);
      expect(wrongBefores(inside)).toEqual([]);
      // Only the runs that went in wrote the ConfigMap, each inside its Lease.
      expect(writesOutside(changes, inside)).toEqual([]);
      expect(env.cluster.store.list('Lease')).toEqual([]);
    } finally {
      clearInterval(renewing);
    }
  });
});
