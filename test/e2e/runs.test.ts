// Runs a person finishes by hand: whether a run lives (its process, its Lease renewals), Leases
// left without a journal, journals of finished runs, and rollbacks that re-judge the live state.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { deploymentYaml, kubectl } from '../kube-sim/testing/kubectl.js';
import { eventually, type Sandbox } from './harness.js';
import { deployWeb, fast, MISSING, runSandbox, slowRollout, THROTTLED, sandboxFor } from './run-fixtures.js';

let env: Sandbox;
sandboxFor(runSandbox, (fresh) => (env = fresh));

function deployV1(yaml?: string): Promise<void> {
  return deployWeb(env, yaml);
}

/** v1 deployed, then a run watching the slow rollout of THROTTLED; and `kguard status` of it. */
async function watchingSlowRollout() {
  await deployV1();
  const live = await slowRollout(env);
  return { live, status: await env.kguard(['status']) };
}

function runIdIn(text: string): string {
  const found = /^(kguard-[a-z0-9]+-[a-z0-9]+)/m.exec(text)?.[1];
  expect(found, text).toBeDefined();
  return found!;
}

describe('a live run', () => {
  it('is shown running; kguard rollback RUN asks it to stop through its Lease: it restores and exits 130, rollback exits 0', async () => {
    const { live, status } = await watchingSlowRollout();
    expect(status.stdout).toMatch(/ running: its process \d+ is running on this machine$/m);
    expect(status.stdout).not.toContain('→');
    // The live run's change stands until the run itself restores it.
    expect(env.imageOf('web')).toBe(THROTTLED);
    const named = await env.kguard(['rollback', runIdIn(status.stdout)]);
    expect(named.exitCode, named.output).toBe(0);
    expect(named.stdout).toMatch(/asked it to stop through its Lease/);
    const ended = await live.done;
    expect(ended.exitCode, ended.output).toBe(130);
    expect(env.imageOf('web')).toBe('nginx:1.25');
  });

  it('--force still restores it from its journal without asking (the old way, for a run known to be gone)', async () => {
    const { live, status } = await watchingSlowRollout();
    const forced = await env.kguard(['rollback', runIdIn(status.stdout), '--force'], { checkRestore: false });
    expect(forced.stdout + forced.stderr).not.toMatch(/asked it to stop/);
    expect(env.imageOf('web')).toBe('nginx:1.25');
    // The live run sees its object changed under it by another writer: that change wins, a person
    // looks (exit 4). It ends by itself: a signal sent to it as well could land after its verdict.
    const ended = await live.done;
    expect(ended.exitCode, ended.output).toBe(4);
    expect(ended.output).toContain("kguard will not undo someone else's change");
  });
});

describe('Leases without a journal', () => {
  /**
   * kill -9 while the run lists Leases after creating its own (its own Lease is created, its
   * journal is not). Its first list is the look for a dead run's journal, before its own Lease:
   * the kill comes during the second.
   */
  async function orphanLease(): Promise<string> {
    await deployV1();
    const leaseList = /^GET [^?]*\/leases\?/;
    env.cluster.faults.slowNext(3000, 2, leaseList);
    const seen = env.cluster.arrivals.length;
    const run = env.kguardProcess([
      'apply',
      '-f',
      await env.write('v2.yaml', deploymentYaml('web', 'nginx:1.26')),
      ...fast,
    ]);
    await eventually(() =>
      env.cluster.arrivals.slice(seen).filter((request) => leaseList.test(request)).length >= 2 ? true : undefined,
    );
    run.child.kill('SIGKILL');
    await run.done;
    expect(env.cluster.store.list('Lease', 'default')).toHaveLength(1);
    expect(
      env.cluster.store.list('Secret', 'default').filter((secret) => secret.metadata.name.endsWith('-journal')),
    ).toEqual([]);
    const status = await env.kguard(['status']);
    expect(status.stdout).toMatch(
      /^kguard-\S+ {2}Leases in namespace default, no journal {2}dead: its process \d+ on this machine has ended {2}→ {2}kguard unlock kguard-\S+$/m,
    );
    return runIdIn(status.stdout);
  }

  it('are listed by status and released by kguard unlock', async () => {
    const runId = await orphanLease();
    const unlocked = await env.kguard(['unlock', runId]);
    expect(unlocked.exitCode, unlocked.output).toBe(0);
    expect(unlocked.stdout).toContain(`kguard unlock ${runId}: released 1 Lease(s)`);
    expect(env.cluster.store.list('Lease', 'default')).toEqual([]);
    expect((await env.kguard(['status'])).stdout).toContain('no unfinished kguard runs');
  });

  it('of a holder that died on this machine are taken over at once by the next run', async () => {
    await orphanLease();
    const next = await env.kguard([
      'apply',
      '-f',
      await env.write('v3.yaml', deploymentYaml('web', 'nginx:1.27')),
      ...fast,
      '--lock-timeout',
      '10s',
    ]);
    expect(next.exitCode, next.output).toBe(0);
    expect(next.output).not.toContain('another kguard run holds it');
    expect(env.cluster.store.list('Lease', 'default')).toEqual([]);
  });
});

describe('runs that end, whatever is left of them', () => {
  it('a journal that cannot be deleted at the end is marked finished: status says so, rollback refuses, forget removes it', async () => {
    await deployV1();
    env.cluster.faults.failNext(403, 1, /^DELETE [^?]*\/secrets\/kguard-[^/]*-journal/);
    const healthy = await env.kguard([
      'apply',
      '-f',
      await env.write('v2.yaml', deploymentYaml('web', 'nginx:1.26')),
      ...fast,
    ]);
    expect(healthy.exitCode, healthy.output).toBe(0);
    expect(healthy.output).toMatch(
      /kguard could not delete its run journal secret\/kguard-\S+-journal \(namespace default\): .*It is marked finished/,
    );
    expect(healthy.output).toMatch(/kguard forget kguard-\S+/);
    const status = await env.kguard(['status']);
    expect(status.stdout).toMatch(
      / ended {2}finished: it ended; only its journal could not be deleted {2}→ {2}kguard forget kguard-\S+$/m,
    );
    const refused = await env.kguard(['rollback']);
    expect(refused.exitCode, refused.output).toBe(1);
    expect(env.imageOf('web')).toBe('nginx:1.26');
    const forgot = await env.kguard(['forget', runIdIn(status.stdout)]);
    expect(forgot.exitCode, forgot.output).toBe(0);
    expect(forgot.stdout).toMatch(
      /removed its journal and 0 Lease\(s\); its objects stay as they are now: deployment\/web \(namespace default\)/,
    );
    expect((await env.kguard(['status'])).stdout).toContain('no unfinished kguard runs');
  });

  it('a run that created a Namespace is closed by kguard rollback once the namespace is gone', async () => {
    const namespace = 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n';
    const failing = await env.kguard([
      'apply',
      '-f',
      await env.write('shop.yaml', `${namespace}---\n${deploymentYaml('web', MISSING, { namespace: 'shop' })}`),
      ...fast,
    ]);
    expect(failing.exitCode, failing.output).toBe(4);
    expect(failing.output).toMatch(/kguard rollback kguard-\S+/);
    const deleted = await kubectl(env.cluster, ['delete', 'namespace', 'shop', '--wait=false']);
    expect(deleted.exitCode, deleted.stderr).toBe(0);
    await eventually(() => (env.cluster.store.get('Namespace', '', 'shop') === undefined ? true : undefined));
    const closed = await env.kguard(['rollback']);
    expect(closed.exitCode, closed.output).toBe(0);
    // The namespace the run created held nothing before it: only the Namespace itself was journalled (in kube-system).
    expect(closed.output).toMatch(/0 object\(s\) restored, 1 already as before the run; journal removed \(exit 0\)/);
  });

  it('a signal while the restored pods start ends restored (exit 130), not ROLLBACK FAILED', async () => {
    // v1's pods get ready 40 simulated seconds after they start; Recreate leaves none of them
    // running through the failed rollout, so the restored ones start from nothing.
    const slowReady = deploymentYaml('web', 'nginx:1.25')
      .replace('spec:\n  replicas: 2', 'spec:\n  strategy:\n    type: Recreate\n  replicas: 2')
      .replace(
        '        ports:',
        '        readinessProbe:\n          httpGet:\n            path: /\n            port: 80\n          initialDelaySeconds: 40\n        ports:',
      );
    expect(slowReady).toContain('type: Recreate');
    await deployV1(slowReady);
    const run = env.kguardProcess([
      'apply',
      '-f',
      await env.write('bad.yaml', slowReady.replace('nginx:1.25', MISSING)),
      ...fast,
    ]);
    await eventually(() => (run.output().includes('put back as it was before the apply') ? true : undefined));
    run.child.kill('SIGTERM');
    const ended = await run.done;
    expect(ended.exitCode, ended.output).toBe(130);
    expect(ended.output).not.toContain('ROLLBACK FAILED');
    expect(env.imageOf('web')).toBe('nginx:1.25');
    expect((await env.kguard(['status'])).stdout).toContain('no unfinished kguard runs');
  });

  it('the private copy written for a person is removed once kguard rollback finishes the run', async () => {
    await deployV1();
    const temp = await mkdtemp(join(tmpdir(), 'kguard-copies-'));
    try {
      const inTemp = { env: { TMPDIR: temp } };
      // Every restore write of the Deployment is refused: the run needs a person (exit 4) and
      // keeps its pre-apply copy for the printed command.
      env.cluster.faults.failNext(403, 5, /^PUT [^?]*\/deployments\/web/);
      const failing = await env.kguard(
        ['apply', '-f', await env.write('bad.yaml', deploymentYaml('web', MISSING)), ...fast],
        inTemp,
      );
      expect(failing.exitCode, failing.output).toBe(4);
      expect((await readdir(temp)).filter((name) => name.startsWith('kguard-restore-'))).toHaveLength(1);
      await env.cluster.faults.restore();
      const finished = await env.kguard(['rollback'], inTemp);
      expect(finished.exitCode, finished.output).toBe(0);
      expect((await readdir(temp)).filter((name) => name.startsWith('kguard-restore-'))).toEqual([]);
    } finally {
      await rm(temp, { recursive: true, force: true });
    }
  });
});
