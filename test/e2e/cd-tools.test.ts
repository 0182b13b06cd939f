// kguard run by CD tools (issue 30): a live run stopped through the cluster by `kguard rollback`
// from another process, as PipeCD's SCRIPT_RUN leaves it (its stage cancelled: the process is
// never signalled, the pipeline's onRollback runs `kguard rollback --run-label`); --diff with
// kubectl diff's exit codes; kubectl's `=` habits; no event line over 64 KiB.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { deploymentYaml } from '../kube-sim/testing/kubectl.js';
import { eventually, KGUARD, type Sandbox, untilWatching } from './harness.js';
import { deployWeb, fast, runSandbox, THROTTLED, sandboxFor } from './run-fixtures.js';

let env: Sandbox;
sandboxFor(runSandbox, (fresh) => (env = fresh));

function deployV1(): Promise<void> {
  return deployWeb(env);
}

/**
 * A runner that behaves as PipeCD's SCRIPT_RUN (pkg/app/pipedv1/plugin/scriptrun/plugin.go): the
 * stage runs `/bin/sh -l -c RUN` with SR_* variables, stdout and stderr into one log; on cancel it
 * returns without signalling the process, and the rollback stage runs `/bin/sh -l -c ON_ROLLBACK`.
 * `sh -l` reads /etc/profile, which resets PATH: kguard is found through ~/.profile, as in a piped image.
 */
async function pipecdRunner(home: string) {
  await mkdir(home, { recursive: true });
  await writeFile(join(home, '.profile'), `export PATH="${dirname(KGUARD)}:$PATH"\n`);
  const stageEnv = {
    ...process.env,
    ...env.cluster.env,
    HOME: home,
    CI: 'true',
    NO_COLOR: '1',
    SR_DEPLOYMENT_ID: 'c2f1e0a4-5d7b-4e8a-9f3c-1a2b3c4d5e6f',
    SR_APPLICATION_NAME: 'web',
  };
  const stage = (script: string) => {
    let log = '';
    const child = execa('/bin/sh', ['-l', '-c', script], { cwd: env.dir, env: stageEnv, reject: false, all: true });
    child.all?.on('data', (chunk: Buffer) => (log += chunk.toString()));
    return { child, log: () => log };
  };
  return { stage };
}

describe('PipeCD SCRIPT_RUN: a cancelled stage, then onRollback', () => {
  it('kguard rollback --run-label asks the live run (never signalled) to stop: it restores and exits 130; rollback exits 0', async () => {
    await deployV1();
    await env.write('web.yaml', deploymentYaml('web', THROTTLED));
    const runner = await pipecdRunner(join(env.dir, 'home'));
    const run = runner.stage(
      `kguard apply -f web.yaml --events events.ndjson --run-label "$SR_DEPLOYMENT_ID" ${fast.join(' ')}`,
    );
    await untilWatching(run.log, 60_000);
    // The stage is cancelled: PipeCD returns without a signal; kguard goes on watching.
    const status = await env.kguard(['status']);
    expect(status.stdout).toMatch(/\(label c2f1e0a4-5d7b-4e8a-9f3c-1a2b3c4d5e6f\).* running: /);
    const askedAt = Date.now();
    const rollback = runner.stage('kguard rollback --run-label "$SR_DEPLOYMENT_ID"');
    const rolledBack = await rollback.child;
    await eventually(() => (env.imageOf('web') === 'nginx:1.25' ? true : undefined));
    await eventually(() =>
      env.cluster.store.get('Deployment', 'default', 'web')?.status?.availableReplicas === 2 ? true : undefined,
    );
    const seconds = (Date.now() - askedAt) / 1000;
    process.stdout.write(`PipeCD-style cancel: kguard rollback to the cluster back: ${seconds.toFixed(1)}s\n`);
    expect(rolledBack.exitCode, rollback.log()).toBe(0);
    expect(rollback.log()).toMatch(/asked it to stop through its Lease/);
    // The run answers on its Lease within a second; it may have ended before this command read the answer.
    expect(rollback.log()).toMatch(/ended \S+s after the request/);
    expect(rollback.log()).toMatch(
      /the run stopped and restored what it changed itself; its journal is gone \(exit 0\)/,
    );
    const ended = await run.child;
    expect(ended.exitCode, run.log()).toBe(130);
    expect(run.log()).toMatch(/asked it to stop \(kguard rollback, /);
    const events = (await readFile(join(env.dir, 'events.ndjson'), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { kind: string; runLabel?: string; exitCode?: number });
    expect(events.find((event) => event.kind === 'journal')?.runLabel).toBe('c2f1e0a4-5d7b-4e8a-9f3c-1a2b3c4d5e6f');
    expect(events.some((event) => event.kind === 'stop-requested')).toBe(true);
    expect(events.find((event) => event.kind === 'finished')?.exitCode).toBe(130);
    // Nothing is left for anyone: no journal, no Lease.
    expect(env.cluster.store.list('Lease', 'default')).toEqual([]);
    // A second onRollback (a retried stage) finds nothing to do and says so, exit 0.
    const again = await runner.stage('kguard rollback --run-label "$SR_DEPLOYMENT_ID"').child;
    expect(again.exitCode).toBe(0);
    expect(String(again.all)).toMatch(/no unfinished kguard run is labelled "c2f1e0a4-5d7b-4e8a-9f3c-1a2b3c4d5e6f"/);
  }, 120_000);
});

describe("--diff speaks kubectl diff's exit codes", () => {
  it('0 nothing would change, 1 something would, 2 a missing file or a bad flag', async () => {
    await deployV1();
    const same = await env.write('same.yaml', deploymentYaml('web', 'nginx:1.25'));
    const changed = await env.write('changed.yaml', deploymentYaml('web', 'nginx:1.26'));
    expect((await env.kguard(['apply', '-f', same, '--diff'])).exitCode).toBe(0);
    expect((await env.kguard(['apply', '-f', changed, '--diff'])).exitCode).toBe(1);
    const missing = await env.kguard(['apply', '-f', join(env.dir, 'nope.yaml'), '--diff']);
    expect(missing.exitCode, missing.output).toBe(2);
    const badFlag = await env.kguard(['apply', '-f', changed, '--diff', '--no-such-flag']);
    expect(badFlag.exitCode, badFlag.output).toBe(2);
    // Without --diff a missing file stays an input error (exit 1).
    expect((await env.kguard(['apply', '-f', join(env.dir, 'nope.yaml')])).exitCode).toBe(1);
    expect(env.imageOf('web')).toBe('nginx:1.25');
  });
});

describe("kubectl's = habits", () => {
  it('-o=json, -n=default, -v=4 and -v6 are read as kubectl reads them', async () => {
    const file = await env.write('web.yaml', deploymentYaml('web', 'nginx:1.25'));
    const run = await env.kguard(['apply', `-f=${file}`, '-o=json', '-n=default', '-v=4', '--poll-interval', '300ms']);
    expect(run.exitCode, run.output).toBe(0);
    expect(JSON.parse(run.stdout).outcome).toBe('succeeded');
    expect(run.stderr).toContain("kguard: note: -v=4 is kubectl's log level: passed to kubectl apply as --v=4");
    const six = await env.kguard(['apply', '-f', file, '-v6', '--dry-run']);
    expect(six.exitCode, six.output).toBe(0);
    expect(six.stderr).toContain("-v6 is kubectl's log level");
  });
});

describe('--events: no line over 64 KiB', () => {
  it('a 1,000-object apply writes no line a 64 KiB line reader cannot take; its changes come in parts', async () => {
    const configMaps = Array.from(
      { length: 1000 },
      (_, index) =>
        `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings-${String(index).padStart(4, '0')}\n  namespace: default\ndata:\n  application.properties: "level=${index}"\n`,
    ).join('---\n');
    const file = await env.write('many.yaml', configMaps);
    const run = await env.kguard(['apply', '-f', file, '--events', 'events.ndjson', '--poll-interval', '300ms'], {
      timeoutMs: 240_000,
    });
    expect(run.exitCode, run.output).toBe(0);
    const lines = (await readFile(join(env.dir, 'events.ndjson'), 'utf8')).split('\n').filter(Boolean);
    const longest = Math.max(...lines.map((line) => Buffer.byteLength(line) + 1));
    process.stdout.write(`1,000-object apply: longest event line ${longest} bytes\n`);
    expect(longest).toBeLessThanOrEqual(64 * 1024);
    const changes = lines.map((line) => JSON.parse(line)).filter((event) => event.kind === 'changes');
    expect(changes.flatMap((event) => event.objects)).toHaveLength(1000);
    expect(changes.length).toBeGreaterThan(1);
  }, 300_000);
});
