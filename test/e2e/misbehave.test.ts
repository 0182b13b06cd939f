// Nothing lost when clocks, terminals and retries misbehave (#45): bin/kguard and the real kubectl
// against the simulator, with a machine's clock faked by libfaketime (Debian's faketime, which
// .ci/run installs: LD_PRELOAD, so node's Date.now() reads the shifted clock and kubectl, a static Go
// binary, the real one), SIGHUP, kill -9 and three retries at once.
import { existsSync, readdirSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { deploymentYaml } from '../kube-sim/testing/kubectl.js';
import { eventually, KGUARD, normalize, OFFLINE_REGISTRIES, type Sandbox, untilWatching } from './harness.js';
import { configMapYaml } from './manifests.js';
import { differencesFrom, peopleMadeObjects } from './restored.js';
import { expectOneRecovery } from './retries.js';
import { deployWeb, fast, runSandbox, THROTTLED } from './run-fixtures.js';

let env: Sandbox;
beforeEach(async () => {
  env = await runSandbox();
});
afterEach(async () => {
  await env.stop();
});

const HOUR_MS = 60 * 60 * 1000;

/** libfaketime's library, as Debian's faketime package installs it (/usr/lib/<triplet>/faketime/). */
function libfaketime(): string {
  for (const triplet of readdirSync('/usr/lib')) {
    const path = join('/usr/lib', triplet, 'faketime', 'libfaketime.so.1');
    if (existsSync(path)) return path;
  }
  throw new Error('libfaketime is missing: apt-get install faketime (.ci/run installs it)');
}

/** The environment of a process whose clock is `offset` off (libfaketime's FAKETIME: "+25h", "-48h"). */
function skewed(offset: string): Record<string, string> {
  return { LD_PRELOAD: libfaketime(), FAKETIME: offset };
}

/** bin/kguard with `extra` in its environment (a faked clock), started now. */
function kguardWith(args: string[], extra: Record<string, string> = {}) {
  const child = execa(KGUARD, args, {
    cwd: env.dir,
    reject: false,
    stdin: 'ignore',
    env: { ...process.env, ...env.cluster.env, ...OFFLINE_REGISTRIES, CI: 'true', NO_COLOR: '1', ...extra },
    timeout: 240_000,
    forceKillAfterDelay: false,
  });
  let seen = '';
  child.stdout?.on('data', (chunk: Buffer) => (seen += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (seen += chunk.toString()));
  const done = child.then((result) => ({
    exitCode: result.exitCode ?? -1,
    signal: result.signal,
    output: normalize(`${String(result.stdout ?? '')}\n${String(result.stderr ?? '')}`),
  }));
  return { child, output: () => seen, done };
}

/** When a run started by its own clock: its id is kguard-<epoch ms, base 36>-… (journal.ts newRunId). */
function startOf(runId: string): number {
  return Number.parseInt(runId.split('-')[1]!, 36);
}

function journalRunIds(): string[] {
  return env.cluster.store
    .list('Secret', 'default', 'kguard.dev/journal=v1')
    .map((secret) => secret.metadata.labels?.['kguard.dev/run'] ?? '');
}

/** web held by a live run on THROTTLED (a rollout that cannot finish), its clock `offset` off. */
async function liveRunOnWeb(offset?: string) {
  const running = kguardWith(
    ['apply', '-f', await env.write('slow.yaml', deploymentYaml('web', THROTTLED)), ...fast, '--timeout', '200s'],
    offset ? skewed(offset) : {},
  );
  await untilWatching(running.output, 60_000);
  const [runId] = journalRunIds();
  expect(runId).toMatch(/^kguard-/);
  return { ...running, runId: runId! };
}

describe('clock skew of ±48 h between runs loses no journal', () => {
  it('libfaketime shifts the clock node reads (Date.now), which the tests below rely on', async () => {
    const read = await execa('node', ['-e', 'process.stdout.write(String(Date.now()))'], {
      env: { ...process.env, ...skewed('+25h') },
    });
    expect(Number(read.stdout) - Date.now()).toBeGreaterThan(25 * HOUR_MS - 60_000);
    expect(Number(read.stdout) - Date.now()).toBeLessThan(25 * HOUR_MS + 60_000);
  });

  it('a run on a machine 25 h ahead leaves a live run’s journal alone: after a kill -9 of that run, kguard rollback restores it', async () => {
    await deployWeb(env);
    const v1 = peopleMadeObjects(env.cluster.store);
    const live = await liveRunOnWeb();
    const ahead = kguardWith(
      ['apply', '-f', await env.write('other.yaml', configMapYaml('other', { level: 'info' })), ...fast],
      skewed('+25h'),
    );
    const other = await ahead.done;
    expect(other.exitCode, other.output).toBe(0);
    // That run's clock was a day ahead: its run id says when it started, by its clock.
    const aheadId = /kguard-[a-z0-9]+-[a-z0-9]+/.exec(other.output)?.[0] ?? '';
    expect(startOf(aheadId) - startOf(live.runId)).toBeGreaterThan(24 * HOUR_MS);
    // Before: it found the live run's journal "expired" by its own clock and deleted it.
    expect(journalRunIds()).toEqual([live.runId]);

    live.child.kill('SIGKILL');
    await live.done;
    const rollback = await kguardWith(['rollback', live.runId]).done;
    // Before: "no journal or Lease of run … found" (exit 1), web left on THROTTLED.
    expect(rollback.exitCode, rollback.output).toBe(0);
    expect(env.imageOf('web')).toBe('nginx:1.25');
    // What is left is the other run's: its ConfigMap and its history record.
    const left = differencesFrom(v1, peopleMadeObjects(env.cluster.store));
    expect(
      left.filter((line) => !/^ConfigMap\/default\/other:|^Secret\/default\/kguard-\S+-history:/.test(line)),
    ).toEqual([]);
  }, 180_000);

  it('a live run on a machine 48 h behind keeps its journal when a run with the right time journals beside it', async () => {
    await deployWeb(env);
    const behind = await liveRunOnWeb('-48h');
    // Its clock was two days behind: its journal says it expired a day ago, by its writer's clock.
    expect(Date.now() - startOf(behind.runId)).toBeGreaterThan(47 * HOUR_MS);
    const other = await kguardWith([
      'apply',
      '-f',
      await env.write('other.yaml', configMapYaml('other', { level: 'info' })),
      ...fast,
    ]).done;
    expect(other.exitCode, other.output).toBe(0);
    // Before: deleted, as "expired", while its run was live.
    expect(journalRunIds()).toEqual([behind.runId]);
    behind.child.kill('SIGKILL');
    await behind.done;
    const rollback = await kguardWith(['rollback', behind.runId]).done;
    expect(rollback.exitCode, rollback.output).toBe(0);
    expect(env.imageOf('web')).toBe('nginx:1.25');
  }, 180_000);
});

describe('SIGHUP (a closed terminal, a dropped SSH session) is SIGTERM', () => {
  it('during the watch: the change is restored and kguard exits 130, saying so', async () => {
    await deployWeb(env);
    const v1 = peopleMadeObjects(env.cluster.store);
    const running = kguardWith([
      'apply',
      '-f',
      await env.write('slow.yaml', deploymentYaml('web', THROTTLED)),
      ...fast,
    ]);
    await untilWatching(running.output);
    running.child.kill('SIGHUP');
    const run = await running.done;
    // Before: killed by SIGHUP (exit 129), no output, the change left live with its journal.
    expect(run.exitCode, run.output).toBe(130);
    expect(run.output).toContain('kguard: SIGHUP: stopping; restoring what this apply changed');
    expect(differencesFrom(v1, peopleMadeObjects(env.cluster.store))).toEqual([]);
    expect(journalRunIds()).toEqual([]);
  });

  it('during the restore: the restore goes on to the end (exit 3), a later SIGHUP included', async () => {
    await deployWeb(env);
    const v1 = peopleMadeObjects(env.cluster.store);
    // A missing image fails at once; the restore then writes web back and watches it roll back.
    const running = kguardWith([
      'apply',
      '-f',
      await env.write('missing.yaml', deploymentYaml('web', 'xxxxxnginx:1.17')),
      ...fast,
    ]);
    await eventually(() => (/restoring \d+ object/.test(running.output()) ? true : undefined), 60_000);
    running.child.kill('SIGHUP');
    const run = await running.done;
    expect([3, 130], run.output).toContain(run.exitCode);
    expect(differencesFrom(v1, peopleMadeObjects(env.cluster.store))).toEqual([]);
    expect(journalRunIds()).toEqual([]);
  });

  it.each(['SIGHUP', 'SIGINT'] as const)(
    'before the apply, during the image check against a registry that never answers: %s exits 130 at once, nothing applied',
    async (signal) => {
      await deployWeb(env);
      const v1 = peopleMadeObjects(env.cluster.store);
      const silent = await blackHole();
      try {
        const running = kguardWith([
          'apply',
          '-f',
          await env.write('web.yaml', deploymentYaml('web', `127.0.0.1:${silent.port}/team/app:v1`)),
          '--request-timeout',
          '60s',
        ]);
        await eventually(() => (silent.connections.length > 0 ? true : undefined), 60_000);
        const signalled = Date.now();
        running.child.kill(signal);
        const run = await running.done;
        expect(run.exitCode, run.output).toBe(130);
        // Before: the registry's request held the exit until --request-timeout (60 s here).
        expect(Date.now() - signalled).toBeLessThan(30_000);
        expect(run.output).toContain(`kguard: ${signal}: stopping; nothing was applied`);
        expect(differencesFrom(v1, peopleMadeObjects(env.cluster.store))).toEqual([]);
      } finally {
        await silent.close();
      }
    },
    120_000,
  );
});

/** A TCP server on 127.0.0.1 that accepts connections and never answers (a black-holed registry). */
async function blackHole(): Promise<{ port: number; connections: Socket[]; close(): Promise<void> }> {
  const connections: Socket[] = [];
  const server: Server = createServer((socket) => connections.push(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : 0,
    connections,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of connections) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

describe('three CI retries at once after a kill -9 (10 times)', () => {
  it('one finishes the dead run, the others wait for it; none takes its writes for someone else’s change', async () => {
    await deployWeb(env);
    const v3 = await env.write('v3.yaml', deploymentYaml('web', 'nginx:1.27'));
    for (let round = 0; round < 10; round++) {
      const dead = await liveRunOnWeb();
      dead.child.kill('SIGKILL');
      await dead.done;
      const retries = await Promise.all(
        [0, 1, 2].map(() => kguardWith(['apply', '-f', v3, ...fast, '--lock-timeout', '120s']).done),
      );
      // Before: in 1 of 3 tries one exited 4, "2 need a person", for the first one's restore.
      expectOneRecovery(retries, round);
      expect(env.imageOf('web')).toBe('nginx:1.27');
      expect(journalRunIds()).toEqual([]);
      // The next round starts from nginx:1.25 again.
      await deployWeb(env);
    }
  }, 900_000);
});

/** `fast`, but a request may take 60 s: kubectl does not give up on a write the test holds (slowNext) first. */
const heldWrites = ['--poll-interval', '300ms', '--timeout', '60s', '--request-timeout', '60s'];

/** Who claimed `runId` on its journal Secret to restore it (restore/recovery/claim.ts), if anyone. */
function claimerOf(runId: string): string | undefined {
  return env.cluster.store
    .list('Secret', 'default', 'kguard.dev/journal=v1')
    .find((secret) => secret.metadata.labels?.['kguard.dev/run'] === runId)?.metadata.annotations?.[
    'kguard.dev/recovering-by'
  ];
}

describe('kguard rollback RUN and a CI retry at once, on the same dead run', () => {
  it.each(['retry', 'rollback'] as const)(
    'the %s claims it first and restores it; the other waits for it and says so; neither exits 4',
    async (first) => {
      await deployWeb(env);
      const v3 = await env.write('v3.yaml', deploymentYaml('web', 'nginx:1.27'));
      const dead = await liveRunOnWeb();
      dead.child.kill('SIGKILL');
      await dead.done;
      // The first restore's write of web is held until the second kguard says it waits for the first.
      env.cluster.faults.slowNext(60_000, 1, /^PUT [^?]*\/deployments\/web(\?|$)/);
      const start = {
        retry: () => kguardWith(['apply', '-f', v3, ...heldWrites, '--lock-timeout', '120s']),
        rollback: () => kguardWith(['rollback', dead.runId]),
      };
      const firstOne = start[first]();
      await eventually(() => (env.cluster.faults.held() > 0 ? true : undefined), 60_000);
      // Its claim, on the dead run's journal Secret: its host and process (before: none by kguard rollback).
      expect(claimerOf(dead.runId)).toMatch(/^\S+ \d+\b/);
      const second = start[first === 'retry' ? 'rollback' : 'retry']();
      let secondEnded = false;
      void second.done.then(() => (secondEnded = true));
      // Before: kguard rollback claimed nothing: with the retry first it restored web beside it (two
      // restores; in other timings one took the other's write for someone else's change and exited 4),
      // and with the rollback first the retry restored it beside it.
      const waits =
        first === 'retry'
          ? `run ${dead.runId}: another kguard, `
          : 'is restoring them from that journal: waiting for it';
      await eventually(() => (secondEnded || second.output().includes(waits) ? true : undefined), 60_000);
      env.cluster.faults.release();
      const [a, b] = await Promise.all([firstOne.done, second.done]);
      const [retry, rollback] = first === 'retry' ? [a, b] : [b, a];
      const story = `retry:\n${retry.output}\nkguard rollback ${dead.runId}:\n${rollback.output}`;
      expect([retry.exitCode, rollback.exitCode], story).toEqual([0, 0]);
      expect(story).not.toContain('need a person');
      const restores = [
        ...(retry.output.match(/finished first: [1-9]\d* object\(s\) restored from its journal/g) ?? []),
        ...(rollback.output.match(/kguard rollback \S+: [1-9]\d* object\(s\) restored/g) ?? []),
      ];
      expect(restores, story).toHaveLength(1);
      if (first === 'retry') {
        expect(rollback.output).toContain(`run ${dead.runId}: another kguard, `);
        expect(rollback.output).toContain(`run ${dead.runId} was finished by another kguard, `);
      } else {
        expect(retry.output).toContain(`run ${dead.runId} finished first, by another kguard (`);
      }
      expect(env.imageOf('web')).toBe('nginx:1.27');
      expect(journalRunIds()).toEqual([]);
    },
    180_000,
  );
});

describe('a signal while a retry restores a dead run', () => {
  it('SIGINT with its write of web in flight: exit 130, the restore said stopped part way with the dead run kept and its command; no ROLLBACK FAILED', async () => {
    await deployWeb(env);
    const v1 = peopleMadeObjects(env.cluster.store);
    const dead = await liveRunOnWeb();
    dead.child.kill('SIGKILL');
    await dead.done;
    // The restore's write of web is held: the signal comes while it is in flight.
    env.cluster.faults.slowNext(60_000, 1, /^PUT [^?]*\/deployments\/web(\?|$)/);
    const retry = kguardWith([
      'apply',
      '-f',
      await env.write('v3.yaml', deploymentYaml('web', 'nginx:1.27')),
      ...heldWrites,
    ]);
    await eventually(() => (env.cluster.faults.held() > 0 ? true : undefined), 60_000);
    retry.child.kill('SIGINT');
    const run = await retry.done;
    expect(run.exitCode, run.output).toBe(130);
    // Before: "ROLLBACK FAILED: Deployment web is not back as it was before the apply: the API
    // server refused the pre-apply copy", for the kubectl kguard itself had killed.
    expect(run.output).not.toContain('ROLLBACK FAILED');
    expect(run.output).not.toContain('refused');
    expect(run.output).toContain(
      `interrupted by SIGINT while kguard restored run ${dead.runId} (it died: its process `,
    );
    expect(run.output).toContain(
      `that restore stopped part way, and its journal is kept. Nothing was applied by this run. Next: kguard rollback ${dead.runId} finishes it`,
    );
    expect(journalRunIds()).toEqual([dead.runId]);
    expect(env.imageOf('web')).not.toBe('nginx:1.27');
    // The command it names finishes it, once the write in flight has ended (it may land).
    env.cluster.faults.release();
    const rollback = await kguardWith(['rollback', dead.runId]).done;
    expect(rollback.exitCode, rollback.output).toBe(0);
    expect(differencesFrom(v1, peopleMadeObjects(env.cluster.store))).toEqual([]);
    expect(journalRunIds()).toEqual([]);
  }, 180_000);
});

describe('kguard rollback of a stuck run (SIGSTOP): its Lease stands still', () => {
  it('asks it to stop, gets no answer, and restores it from its journal once its Lease has stood still for 120 s', async () => {
    await deployWeb(env);
    const v1 = peopleMadeObjects(env.cluster.store);
    const stuck = await liveRunOnWeb();
    stuck.child.kill('SIGSTOP');
    try {
      const rollback = await kguardWith(['rollback', stuck.runId]).done;
      // Before: 150 s later, exit 2, "neither answered the stop request nor stopped renewing its
      // Lease", though the Lease had not moved for 130 s (its process runs on this machine, stopped).
      expect(rollback.exitCode, rollback.output).toBe(0);
      expect(rollback.output).toContain(
        'its Lease stood still for <DURATION> (not renewed since the stop request): restoring it from its journal',
      );
      expect(env.imageOf('web')).toBe('nginx:1.25');
      expect(differencesFrom(v1, peopleMadeObjects(env.cluster.store))).toEqual([]);
    } finally {
      stuck.child.kill('SIGKILL');
      await stuck.done;
    }
  }, 300_000);
});

describe('every message true: what a person can fix outside kguard is exit 2, said once', () => {
  it('a TMPDIR that does not exist is exit 2, named (was 70, "a bug in kguard")', async () => {
    const run = await kguardWith(
      ['apply', '-f', await env.write('settings.yaml', configMapYaml('settings', { level: 'info' }))],
      { TMPDIR: join(env.dir, 'gone') },
    ).done;
    expect(run.exitCode, run.output).toBe(2);
    expect(run.output).toContain(
      `the temporary directory ${join(env.dir, 'gone')} (TMPDIR) cannot be used: it does not exist.`,
    );
    expect(run.output).not.toContain('bug in kguard');
    expect(env.cluster.store.get('ConfigMap', 'default', 'settings')).toBeUndefined();
  });

  it("a failing exec credential plugin is exit 2 with the plugin's own words, once (was exit 1, 'cannot read the manifests')", async () => {
    const kubeconfig = await env.write(
      'plugin-kubeconfig',
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters:',
        '- name: sso',
        '  cluster:',
        // https: client-go asks the plugin before it connects (nobody serves port 9).
        '    server: https://127.0.0.1:9',
        'contexts:',
        '- name: sso',
        '  context:',
        '    cluster: sso',
        '    user: sso',
        'current-context: sso',
        'users:',
        '- name: sso',
        '  user:',
        '    exec:',
        '      apiVersion: client.authentication.k8s.io/v1',
        '      command: sh',
        '      args: ["-c", "echo \'the SSO session expired: run corp-login\' >&2; exit 1"]',
        '      interactiveMode: Never',
        '',
      ].join('\n'),
    );
    const run = await kguardWith(
      ['apply', '-f', await env.write('settings.yaml', configMapYaml('settings', { level: 'info' }))],
      { KUBECONFIG: kubeconfig },
    ).done;
    expect(run.exitCode, run.output).toBe(2);
    expect(run.output).toContain(
      "kubectl could not log in to the cluster: the credential plugin says: the SSO session expired: run corp-login (kubectl: getting credentials: exec: executable sh failed with exit code 1). Next: the kubeconfig's credential plugin sh failed (exit 1): do what it says (log in again)",
    );
    expect(run.output.match(/the SSO session expired/g)).toHaveLength(1);
  });
});
