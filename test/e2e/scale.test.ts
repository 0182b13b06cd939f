// A large doomed apply (issue "Scale to real applies"), end to end: one Deployment with a missing
// image among 150 objects, in one namespace and over ten. kguard ends exit 3 with every
// object back as it was before the run (the harness compares each one field by field, see
// restored.ts), and never runs more kubectl processes at once than --concurrency allows, watch
// streams aside (seen from outside kguard: a KGUARD_KUBECTL script logs each process).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { kubectl } from '../kube-sim/testing/kubectl.js';
import { eventually, sandbox, type Sandbox } from './harness.js';
import { peakConcurrency, recordingKubectl, type KubectlProcessRecord } from './kubectl-log.js';
import { objectSet, type SetVersion } from './manifests.js';
import { MISSING } from './run-fixtures.js';

const CONCURRENCY = 6;
const V1: SetVersion = { image: 'nginx:1.25', config: 'one', port: 80 };
const DOOMED: SetVersion = { image: 'nginx:1.26', config: 'two', port: 8080, bad: 3, badImage: MISSING };

let env: Sandbox;
beforeEach(async () => {
  // Room for every pod, and simulated time fast enough that the rollouts are not what is measured.
  env = await sandbox({
    timeScale: 20,
    scenario: { registry: { [MISSING]: 'missing' }, nodes: { count: 6, pods: 200, cpu: '64', memory: '256Gi' } },
  });
});
afterEach(async () => {
  await env.stop();
});

interface ReportObject {
  kind: string;
  namespace: string | null;
  name: string;
  restore: { status: string; healthyAfterRestore: boolean | null } | null;
}

/** Applies v1 with kubectl and waits until every Deployment has rolled out. */
async function deployFirstVersion(manifest: string): Promise<void> {
  // Hundreds of objects in one kubectl apply: more than the 20 s a small apply is given.
  const applied = await kubectl(env.cluster, ['apply', '-f', '-'], manifest, 120_000);
  expect(applied.exitCode, applied.stderr).toBe(0);
  await eventually(() => {
    const pending = env.cluster.store.everything().filter((object) => {
      if (object.kind !== 'Deployment') return false;
      const status = object.status as
        | { observedGeneration?: number; availableReplicas?: number; updatedReplicas?: number }
        | undefined;
      return !(
        status?.observedGeneration === object.metadata.generation &&
        status?.availableReplicas === 1 &&
        status?.updatedReplicas === 1
      );
    });
    return pending.length === 0 ? true : undefined;
  }, 120_000);
}

async function doomedApply(count: number, namespaces: readonly (string | undefined)[]) {
  const namespaceDocs = namespaces.flatMap((namespace) =>
    namespace ? [`apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${namespace}\n`] : [],
  );
  await deployFirstVersion([...namespaceDocs, objectSet(count, V1, namespaces)].join('---\n'));
  const recorded = await recordingKubectl(env.dir);
  const file = await env.write('doomed.yaml', objectSet(count, DOOMED, namespaces));
  const run = await env.kguard(
    [
      'apply',
      '-f',
      file,
      '-o',
      'json',
      '--concurrency',
      String(CONCURRENCY),
      '--timeout',
      '180s',
      '--poll-interval',
      '1s',
    ],
    {
      env: { KGUARD_KUBECTL: recorded.binary },
      // A loaded machine: kubectl apply alone writes the objects one at a time.
      timeoutMs: 300_000,
    },
  );
  const processes = await recorded.processes();
  return { run, processes };
}

function expectEveryObjectRestored(stdout: string, count: number): void {
  const report = JSON.parse(stdout) as { objects: ReportObject[] };
  expect(report.objects).toHaveLength(count);
  const notRestored = report.objects.filter(
    (object) => object.restore?.status !== 'restored' || object.restore.healthyAfterRestore === false,
  );
  expect(
    notRestored.map((object) => `${object.kind}/${object.namespace}/${object.name}: ${JSON.stringify(object.restore)}`),
  ).toEqual([]);
}

/**
 * At most --concurrency kubectl processes at once besides the long-lived ones (watches, the run's
 * kubectl proxy), and a handful of processes whatever the number of objects: the snapshot, the
 * journal, the Leases, the watches and the restore's reads and writes go through the proxy
 * (kubectl/channel/api-channel.ts), one request each.
 */
function expectBoundedProcesses(stdout: string, processes: readonly KubectlProcessRecord[]): void {
  const pooled = processes.filter((process) => !process.watch);
  const longLived = processes.filter((process) => process.watch);
  expect(peakConcurrency(pooled)).toBeLessThanOrEqual(CONCURRENCY);
  expect(peakConcurrency(processes)).toBeLessThanOrEqual(CONCURRENCY + peakConcurrency(longLived));
  const report = JSON.parse(stdout) as { kubectlProcesses: number };
  expect(report.kubectlProcesses).toBe(processes.length);
  // The dry runs, the apply, the permission check and the proxy: a handful, not one per object or namespace.
  expect(processes.length).toBeLessThan(20);
}

describe('a large doomed apply', () => {
  it('150 objects in one namespace: exit 3, every object restored exactly, at most --concurrency kubectl processes at once besides watches', async () => {
    const { run, processes } = await doomedApply(150, [undefined]);
    // The harness has compared every object with its pre-apply copy (exit 3).
    expect(run.exitCode, run.stderr).toBe(3);
    expect(run.stderr).toContain(`deployment/app-3 (namespace default): new pods cannot pull image "${MISSING}"`);
    expectEveryObjectRestored(run.stdout, 150);

    expectBoundedProcesses(run.stdout, processes);
  }, 600_000);

  it('150 objects over 10 namespaces: exit 3, every object restored exactly, at most --concurrency kubectl processes at once besides watches', async () => {
    const namespaces = Array.from({ length: 10 }, (_, index) => `team-${index}`);
    const { run, processes } = await doomedApply(150, namespaces);
    expect(run.exitCode, run.stderr).toBe(3);
    expect(run.stderr).toContain(`deployment/app-3 (namespace team-0): new pods cannot pull image "${MISSING}"`);
    expectEveryObjectRestored(run.stdout, 150);

    expectBoundedProcesses(run.stdout, processes);
  }, 600_000);
});
