// Crash-safe and concurrency-safe runs: the journal in the cluster lets `kguard rollback` finish a
// run that was killed at any point; leases keep two runs off the same objects.
import { execFileSync } from 'node:child_process';
import { chmod, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { deploymentYaml, kubectl } from '../kube-sim/testing/kubectl.js';
import { eventually, type Sandbox, untilWatching } from './harness.js';
import { deployApp, fast, MISSING, runSandbox, slowRollout, THROTTLED, sandboxFor } from './run-fixtures.js';
import { configMapYaml } from './manifests.js';
import { differencesFrom, peopleMadeObjects } from './restored.js';

let env: Sandbox;
sandboxFor(runSandbox, (fresh) => (env = fresh));

/** v1 of a small app: a ConfigMap and a Deployment, healthy. */
const deployV1 = () => deployApp(env);

/** kguard apply of web's v2 (nginx:1.26), with the test's fast flags and `flags`. */
async function applyV2(...flags: string[]) {
  return env.kguard([
    'apply',
    '-f',
    await env.write('web.yaml', deploymentYaml('web', 'nginx:1.26')),
    ...fast,
    ...flags,
  ]);
}

const v2 = (image: string) =>
  `${configMapYaml('settings', { level: 'debug' })}---\n${deploymentYaml('web', image)}---\n${configMapYaml('brand-new', { a: '1' })}`;

/**
 * kill -9 at a moment chosen by `when`, then at once, as a person would, `kguard status` and
 * `kguard rollback`: the cluster is as before the run, and stays so once every request the dead
 * run had sent has been answered.
 */
async function killThenRollBack(
  when: (output: () => string, seen: number) => Promise<void>,
  image = THROTTLED,
): Promise<string> {
  await deployV1();
  const before = peopleMadeObjects(env.cluster.store);
  const file = await env.write('v2.yaml', v2(image));
  const seen = env.cluster.arrivals.length;
  const running = env.kguardProcess(['apply', '-f', file, ...fast]);
  await when(running.output, seen);
  running.child.kill('SIGKILL');
  await running.done;

  const status = await env.kguard(['status']);
  expect(status.exitCode, status.output).toBe(0);
  expect(status.stdout).toMatch(
    /^kguard-\S+ {2}namespace default {2}3 object\(s\) .* dead: its process \d+ on this machine has ended {2}→ {2}kguard rollback kguard-\S+$/m,
  );
  const run = await env.kguard(['rollback']);
  expect(run.exitCode, run.output).toBe(0);
  expect(run.output).toMatch(
    /kguard rollback kguard-\S+: \d object\(s\) restored, \d already as before the run; journal removed \(exit 0\)/,
  );
  // A request the dead run left in flight has been answered by now; nothing it sent landed later.
  await eventually(() => (env.cluster.requests.length >= env.cluster.arrivals.length ? true : undefined));
  await env.cluster.faults.restore();
  // Leases and the journal are gone too: the cluster is exactly as before the run.
  expect(differencesFrom(before, peopleMadeObjects(env.cluster.store))).toEqual([]);
  expect((await env.kguard(['status'])).stdout).toContain('no unfinished kguard runs');
  return run.output;
}

describe('kill -9, then kguard rollback', () => {
  it('right after the apply started: the held PATCH lands after the kill, and the rollback waits it out', async () => {
    // Hold the apply's PATCH of the Deployment at the server; the kill lands while it is held,
    // and the server applies it 1.5 s later, as an API server finishes a write it has begun.
    env.cluster.faults.slowNext(1500, 1, /^PATCH [^?]*\/deployments\/web\?(?!.*dryRun)/);
    const output = await killThenRollBack(async (_output, seen) => {
      await eventually(() =>
        env.cluster.arrivals.slice(seen).some((request) => /^PATCH [^?]*\/deployments\/web\?(?!.*dryRun)/.test(request))
          ? true
          : undefined,
      );
    });
    expect(output).toMatch(
      /run kguard-\S+ died during its apply: waiting (<DURATION>|[45]s) \(its request timeout\) for a request it left in flight to end, then restoring/,
    );
  });

  it('in the middle of the watch', async () => {
    await killThenRollBack(async (output) => {
      await untilWatching(output);
    });
  });

  it('in the middle of the restore', async () => {
    // The restore's first write of the Deployment lands, slowly; the kill comes while it is held.
    env.cluster.faults.slowNext(1500, 1, /^PUT [^?]*\/deployments\/web/);
    await killThenRollBack(async (_output, seen) => {
      await eventually(() =>
        env.cluster.arrivals.slice(seen).some((request) => /^PUT [^?]*\/deployments\/web/.test(request))
          ? true
          : undefined,
      );
    }, MISSING);
  });
});

describe('one run per object at a time', () => {
  it('a second run on the same Deployment waits for the first and judges against the right "before"', async () => {
    await deployV1();
    // The first run holds web (its pulls are throttled) until the second is seen waiting for it, and
    // only then is stopped (it restores, exit 130): however long the second takes to start under
    // load, it arrives while the first holds web (a --timeout of seconds let the first end first).
    const first = env.kguardProcess([
      'apply',
      '-f',
      await env.write('bad.yaml', deploymentYaml('web', THROTTLED)),
      ...fast,
      '--timeout',
      '90s',
    ]);
    await untilWatching(first.output);
    const second = env.kguardProcess([
      'apply',
      '-f',
      await env.write('good.yaml', deploymentYaml('web', 'nginx:1.26')),
      ...fast,
    ]);
    await eventually(() => (second.output().includes('another kguard run holds it') ? true : undefined), 60_000);
    first.child.kill('SIGTERM');
    const firstRun = await first.done;
    const secondRun = await second.done;
    expect(firstRun.exitCode, firstRun.output).toBe(130);
    expect(secondRun.exitCode, secondRun.output).toBe(0);
    expect(secondRun.output).toMatch(
      /deployment\/web \(namespace default\): another kguard run holds it \(kguard-\S+\); waiting/,
    );
    // The second run's "before" was nginx:1.25 restored by the first, not the first run's broken image.
    expect(secondRun.output).toContain('deployment/web (namespace default): changed');
    expect(env.imageOf('web')).toBe('nginx:1.26');
  });

  it('gives up after --lock-timeout, naming the holder, and changes nothing (exit 2)', async () => {
    await deployV1();
    const first = await slowRollout(env);
    const second = await env.kguard([
      'apply',
      '-f',
      await env.write('settings.yaml', configMapYaml('other', { a: '1' })),
      '-f',
      await env.write('web.yaml', deploymentYaml('web', 'nginx:1.26')),
      '--lock-timeout',
      '2s',
    ]);
    expect(second.exitCode, second.output).toBe(2);
    expect(second.stderr).toMatch(
      /deployment\/web \(namespace default\) is held by another kguard run \(kguard-\S+\); waited 2s \(--lock-timeout\)/,
    );
    expect(env.cluster.store.get('ConfigMap', 'default', 'other')).toBeUndefined();
    first.child.kill('SIGTERM');
    await first.done;
  });

  it('a run stopped by SIGTERM while it waits for another run leaves no Lease of its own (exit 130)', async () => {
    await deployV1();
    const first = await slowRollout(env);
    const second = env.kguardProcess([
      'apply',
      '-f',
      await env.write('web.yaml', deploymentYaml('web', 'nginx:1.26')),
      ...fast,
    ]);
    await eventually(() => (second.output().includes('another kguard run holds it') ? true : undefined));
    // It waits with a ticket: its own Lease is in the cluster, behind the first run's.
    expect(env.cluster.store.list('Lease', 'default')).toHaveLength(2);
    second.child.kill('SIGTERM');
    const stopped = await second.done;
    expect(stopped.exitCode, stopped.output).toBe(130);
    expect(stopped.output).not.toContain('could not delete its Lease');
    expect(env.cluster.store.list('Lease', 'default')).toHaveLength(1);
    first.child.kill('SIGTERM');
    await first.done;
    expect(env.cluster.store.list('Lease', 'default')).toEqual([]);
  });

  it('takes over the lease of a run that died once it has seen it unrenewed for its duration', async () => {
    await deployV1();
    // A Lease left by a run killed long ago, lasting 1 s. Its renewTime (two minutes back, by a
    // clock that may not be this machine's) is not believed: the run waits until it has seen the
    // Lease stand still for a second itself, then deletes it.
    const { runLeases } = await import('../../src/journal/lease.js');
    const [stale] = runLeases(
      'kguard-dead-run',
      'default',
      ['apps/Deployment/default/web'],
      1,
      new Date(Date.now() - 120_000),
    );
    const created = await kubectl(env.cluster, ['create', '-f', '-'], JSON.stringify(stale));
    expect(created.exitCode, created.stderr).toBe(0);
    const run = await applyV2('--lock-timeout', '20s');
    expect(run.exitCode, run.output).toBe(0);
    expect(run.output).toContain(
      'deployment/web (namespace default): another kguard run holds it (kguard-dead-run); waiting',
    );
    expect(env.imageOf('web')).toBe('nginx:1.26');
    expect(env.cluster.store.list('Lease', 'default')).toEqual([]);
  });

  it('takes one Lease per namespace that exists (cluster-scoped objects: in kube-system), none in a namespace the apply creates, none with --no-journal', async () => {
    const leases: string[] = [];
    env.cluster.store.subscribe((event) => {
      if (event.type === 'ADDED' && event.object.kind === 'Lease')
        leases.push(`${event.object.metadata.namespace}/${event.object.metadata.name}`);
    });
    const manifests = [
      'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: fresh\n',
      configMapYaml('inside', { a: '1' }, 'fresh'),
      configMapYaml('one', { a: '1' }),
      configMapYaml('two', { a: '1' }),
    ].join('---\n');
    const run = await env.kguard(['apply', '-f', await env.write('all.yaml', manifests), ...fast]);
    expect(run.exitCode, run.output).toBe(0);
    expect(leases.sort()).toEqual([
      expect.stringMatching(/^default\/kguard-\S+$/),
      expect.stringMatching(/^kube-system\/kguard-\S+$/),
    ]);
    const without = await env.kguard([
      'apply',
      '-f',
      await env.write('more.yaml', configMapYaml('three', { a: '1' })),
      ...fast,
      '--no-journal',
    ]);
    expect(without.exitCode, without.output).toBe(0);
    expect(leases).toHaveLength(2);
    expect(env.cluster.store.list('Lease')).toEqual([]);
  });
});

/**
 * A kubectl (KGUARD_KUBECTL) that runs the real one and, for the apply itself (`apply -f -`, no
 * dry run), says it started and keeps every byte its stdin gives: kguard starts that kubectl
 * during the guard with its input held back (run/apply/guard.ts).
 */
async function heldApplyKubectl(): Promise<{ binary: string; started(): Promise<boolean>; given(): Promise<string> }> {
  const real = execFileSync('sh', ['-c', 'command -v kubectl'], { encoding: 'utf8' }).trim();
  const log = join(env.dir, 'held.log');
  const given = join(env.dir, 'held-stdin');
  const binary = await env.write(
    'kubectl-held',
    `#!/bin/bash
case " $* " in
  *" --dry-run"*) ;;
  *" apply -f - "*) echo started >> ${JSON.stringify(log)}; tee -a ${JSON.stringify(given)} | ${JSON.stringify(real)} "$@"; exit \${PIPESTATUS[1]} ;;
esac
exec ${JSON.stringify(real)} "$@"
`,
  );
  await chmod(binary, 0o755);
  const text = (file: string) => readFile(file, 'utf8').catch(() => '');
  return { binary, started: async () => (await text(log)).includes('started'), given: () => text(given) };
}

const patchesOfWeb = () =>
  env.cluster.requests.filter(
    (request) => request.method === 'PATCH' && /\/deployments\/web(?!.*dryRun)/.test(request.url),
  );

describe("the apply's kubectl, started during the guard with its input held back", () => {
  it("a refused journal stops it having sent it nothing: the Deployment is unchanged; once the guard holds it gets the file's bytes", async () => {
    await deployV1();
    const held = await heldApplyKubectl();
    const patched = patchesOfWeb().length;
    env.cluster.faults.failNext(403, 10, /^POST [^?]*\/secrets/);
    const file = await env.write('web.yaml', deploymentYaml('web', 'nginx:1.26'));
    const run = await env.kguard(['apply', '-f', file, ...fast], { env: { KGUARD_KUBECTL: held.binary } });
    expect(run.exitCode, run.output).toBe(2);
    expect(run.stderr).toContain('kguard could not write its run journal');
    expect(await held.started()).toBe(true);
    expect(await held.given()).toBe('');
    expect(patchesOfWeb().length).toBe(patched);
    expect(env.imageOf('web')).toBe('nginx:1.25');
    await env.cluster.faults.restore();

    const applied = await env.kguard(['apply', '-f', file, ...fast], { env: { KGUARD_KUBECTL: held.binary } });
    expect(applied.exitCode, applied.output).toBe(0);
    expect(await held.given()).toBe(await readFile(file, 'utf8'));
    expect(env.imageOf('web')).toBe('nginx:1.26');
  });

  it('a file changed after the server dry run read it is refused before anything is written (exit 1)', async () => {
    await deployV1();
    const file = await env.write('web.yaml', deploymentYaml('web', 'nginx:1.26'));
    // A kubectl whose server dry run, once answered, leaves the file changed: someone saving it then.
    const changing = await env.write(
      'kubectl-changing',
      `#!/bin/bash
${JSON.stringify(execFileSync('sh', ['-c', 'command -v kubectl'], { encoding: 'utf8' }).trim())} "$@"
code=$?
case " $* " in *" --dry-run=server "*) sed -i 's/nginx:1.26/nginx:1.27/' ${JSON.stringify(file)} ;; esac
exit $code
`,
    );
    await chmod(changing, 0o755);
    const patched = patchesOfWeb().length;
    const run = await env.kguard(['apply', '-f', file, ...fast], { env: { KGUARD_KUBECTL: changing } });
    expect(run.exitCode, run.output).toBe(1);
    expect(run.stderr).toContain(`${file}: the file changed while kguard read it`);
    expect(patchesOfWeb().length).toBe(patched);
    expect(env.imageOf('web')).toBe('nginx:1.25');
  });

  it('a signal while the journal is written stops it having sent it nothing (exit 130)', async () => {
    await deployV1();
    const held = await heldApplyKubectl();
    const patched = patchesOfWeb().length;
    env.cluster.faults.slowNext(20_000, 1, /^POST [^?]*\/secrets/);
    const file = await env.write('web.yaml', deploymentYaml('web', 'nginx:1.26'));
    const running = env.kguardProcess(['apply', '-f', file, ...fast], { env: { KGUARD_KUBECTL: held.binary } });
    await eventually(async () => ((await held.started()) ? true : undefined));
    await eventually(() =>
      env.cluster.arrivals.some((arrival) => /^POST [^?]*\/secrets/.test(arrival)) ? true : undefined,
    );
    running.child.kill('SIGINT');
    const run = await running.done;
    expect(run.exitCode, run.output).toBe(130);
    expect(run.stderr).toContain('nothing was applied');
    expect(await held.given()).toBe('');
    expect(patchesOfWeb().length).toBe(patched);
    expect(env.imageOf('web')).toBe('nginx:1.25');
    await env.cluster.faults.restore();
  });
});

describe('the journal needs permissions, checked before the apply', () => {
  it('a refused journal Secret stops the run with the RBAC rule to add; nothing is applied (exit 2)', async () => {
    await deployV1();
    env.cluster.faults.failNext(403, 10, /^POST [^?]*\/secrets/);
    const run = await applyV2();
    expect(run.exitCode, run.output).toBe(2);
    expect(run.stderr).toContain('kguard could not write its run journal (a Secret) in namespace default');
    expect(run.stderr).toContain(
      'apiGroups: [""], resources: ["secrets"], verbs: ["create", "get", "update", "delete"]',
    );
    expect(run.stderr).toContain('--no-journal');
    expect(env.imageOf('web')).toBe('nginx:1.25');
    expect(env.cluster.store.list('Lease', 'default')).toEqual([]);
    // With --no-journal the run goes ahead.
    env.cluster.faults.failNext(403, 10, /^POST [^?]*\/secrets/);
    const without = await applyV2('--no-journal');
    expect(without.exitCode, without.output).toBe(0);
    await env.cluster.faults.restore();
  });

  it('a refused Lease stops the run with the RBAC rule to add; nothing is applied (exit 2)', async () => {
    await deployV1();
    env.cluster.faults.failNext(403, 10, /^POST [^?]*\/leases/);
    const run = await applyV2();
    expect(run.exitCode, run.output).toBe(2);
    expect(run.stderr).toContain('kguard could not take a lease on the objects it will change in namespace default');
    expect(run.stderr).toContain(
      'apiGroups: ["coordination.k8s.io"], resources: ["leases"], verbs: ["create", "get", "list", "update", "delete"]',
    );
    expect(run.stderr).toContain('--no-journal');
    expect(env.imageOf('web')).toBe('nginx:1.25');
    expect(env.cluster.store.list('Lease', 'default')).toEqual([]);
    await env.cluster.faults.restore();
  });
});
