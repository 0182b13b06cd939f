// kguard where users are (issue 18), end to end with the real kubectl against the simulator:
// kubectl's flags taken natively with kubectl's meaning, -v showing every kubectl command with
// its credentials masked, -q showing only the verdicts, and the version from package.json.
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deploymentYaml, kubectl } from '../kube-sim/testing/kubectl.js';
import { assertValidEventStream } from '../report/events-schema.js';
import { gitlabTestCases } from '../report/gitlab-junit.js';
import { eventually, sandbox, type Sandbox, untilWatching } from './harness.js';
import { configMapYaml } from './manifests.js';
import { MISSING } from './run-fixtures.js';

const fast = ['--poll-interval', '300ms', '--timeout', '60s'];
const TOKEN = 'tok-3f9a1c77e2';
const SECRET_IMAGE = 'sekr3t-image-a91f';
/** An image whose pulls are throttled for ever: its rollout stays in progress until kguard is stopped. */
const THROTTLED = 'registry.example.com/shop/web:2.0';

let env: Sandbox;
beforeAll(async () => {
  env = await sandbox({
    scenario: {
      registry: {
        [MISSING]: 'missing',
        [`${SECRET_IMAGE}:1.0`]: 'missing',
        [THROTTLED]: { rateLimitedPulls: 1_000_000 },
      },
    },
  });
});
afterAll(async () => {
  await env.stop();
});

/** Labels an object team=<team> (and drops the app label), so -l picks it. */
const labelled = (text: string, team: string) =>
  text
    .replace(/^metadata:\n/m, `metadata:\n  labels:\n    team: ${team}\n`)
    .replace(/^ {2}labels:\n {4}app: \w+\n/m, '');

describe('kubectl flags before --', () => {
  it('prunes with -l and --prune as kubectl does, impersonates with --as on every call, and restores what it pruned', async () => {
    await kubectl(
      env.cluster,
      ['apply', '-f', '-'],
      `${labelled(configMapYaml('old', { a: '1' }), 'shop')}---\n${labelled(deploymentYaml('web', 'nginx:1.25'), 'shop')}`,
    );
    const file = await env.write('shop.yaml', labelled(deploymentYaml('web', MISSING), 'shop'));
    const run = await env.kguard([
      'apply',
      '-f',
      file,
      ...fast,
      '-l',
      'team=shop',
      '--prune',
      '--as',
      'ci-bot',
      '--token',
      TOKEN,
      '-v',
    ]);
    expect(run.exitCode, run.output).toBe(3);
    expect(run.output).toContain('configmap/old (namespace default): deleted');
    expect(run.output).toContain('configmap/old (namespace default): created again (this apply deleted it)');
    expect(env.cluster.store.get('ConfigMap', 'default', 'old')?.data).toEqual({ a: '1' });
    // -v: every kubectl process, with who it ran as and its token masked.
    const calls = run.output.split('\n').filter((line) => line.startsWith('• kubectl '));
    expect(calls.length).toBeGreaterThan(8);
    for (const call of calls) {
      expect(call).toContain('--as=ci-bot');
      expect(call).toContain("'--token=[redacted]'");
      expect(call).toMatch(/\((exit \d+|killed at its deadline)(, watch)?(, through kubectl proxy)?, <DURATION>\)$/);
    }
    expect(calls.find((call) => / apply .*--dry-run=server/.test(call))).toContain('-l=team=shop --prune');
    expect(
      calls.some((call) => / apply -f \S+ -l=team=shop --prune --openapi-patch=false --request-timeout/.test(call)),
    ).toBe(true);
    expect(run.output).not.toContain(TOKEN);
  });

  it('answers an unknown option with the exact command that puts it after --, and runs no kubectl', async () => {
    const file = await env.write('plain.yaml', deploymentYaml('plain', 'nginx:1.25'));
    const run = await env.kguard(['apply', '-f', file, '--openapi-patch', 'false', '--token', TOKEN, '-o', 'json'], {
      env: { KGUARD_KUBECTL: '/nonexistent/kubectl' },
    });
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain(
      `kubectl apply flag goes after --:\n  kguard apply -f ${file} --token [redacted] -o json -- --openapi-patch=false`,
    );
    expect(JSON.parse(run.stdout)).toMatchObject({
      outcome: 'error',
      exitCode: 1,
      error: expect.stringContaining('-- --openapi-patch=false'),
    });
    expect(run.output).not.toContain(TOKEN);
    expect(env.cluster.store.get('Deployment', 'default', 'plain')).toBeUndefined();
  });
});

describe('--events', () => {
  it('writes every event as one JSON line as it happens, Secret-redacted like the report, ending with the verdict', async () => {
    // A Secret value that also names the image: the failure's diagnosis quotes it, redacted.
    const secret = `apiVersion: v1\nkind: Secret\nmetadata:\n  name: creds\nstringData:\n  image: ${SECRET_IMAGE}\n`;
    const file = await env.write('events.yaml', `${secret}---\n${deploymentYaml('streamed', `${SECRET_IMAGE}:1.0`)}`);
    const run = await env.kguard(['apply', '-f', file, ...fast, '--events', 'events.ndjson', '-v']);
    expect(run.exitCode, run.output).toBe(3);
    // The harness has validated every line against schema/events.schema.json.
    const path = join(env.dir, 'events.ndjson');
    const text = await readFile(path, 'utf8');
    const events = text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { kind: string; seq: number; exitCode?: number });
    expect(events.map((event) => event.seq)).toEqual(events.map((_event, index) => index + 1));
    const story = events
      .map((event) => event.kind)
      .filter((kind) => kind !== 'kubectl' && kind !== 'progress' && kind !== 'pod-problem');
    expect(story).toEqual([
      'target',
      'understood',
      // The simulator's images are asked of no real registry (harness.ts OFFLINE_REGISTRIES).
      'image-not-checked',
      'journal',
      'applied',
      'changes',
      'tracking',
      'failed',
      'restoring',
      'restored',
      'restored',
      'finished',
    ]);
    // The verdict; with -v only kubectl's processes of kguard's cleanup (journal, Leases) follow it.
    const finished = events.findIndex((event) => event.kind === 'finished');
    expect(events[finished]).toMatchObject({ kind: 'finished', outcome: 'rolled-back', exitCode: 3 });
    expect(events.slice(finished + 1).every((event) => event.kind === 'kubectl')).toBe(true);
    expect(events.filter((event) => event.kind === 'kubectl').length).toBeGreaterThan(5);
    expect(text).toContain('[redacted]');
    expect(text).not.toContain(SECRET_IMAGE);
    expect(run.output).not.toContain(SECRET_IMAGE);
    expect((await stat(path)).mode & 0o077).toBe(0);
  });

  it('--events - writes the stream on stdout and the log on stderr; a run that cannot start ends the stream with an error line', async () => {
    const file = await env.write('events-fine.yaml', deploymentYaml('fine', 'nginx:1.25'));
    const run = await env.kguard(['apply', '-f', file, ...fast, '--events', '-']);
    expect(run.exitCode, run.output).toBe(0);
    expect(run.stdout.split('\n').every((line) => line === '' || line.startsWith('{"eventsVersion":1,'))).toBe(true);
    expect(run.stderr).toContain('deployment/fine (namespace default): rolled out');
    const missing = await env.kguard(['apply', '-f', file, '--events', '-'], {
      env: { KUBECONFIG: join(env.dir, 'no-such-kubeconfig') },
    });
    expect(missing.exitCode).toBe(1);
    expect(JSON.parse(missing.stdout.trim())).toMatchObject({
      seq: 1,
      kind: 'error',
      exitCode: 1,
      message: expect.stringContaining('no-such-kubeconfig'),
    });
    const both = await env.kguard(['apply', '-f', file, '--events', '-', '-o', 'json']);
    expect(both.exitCode).toBe(1);
    expect(JSON.parse(both.stdout)).toMatchObject({
      outcome: 'error',
      error: expect.stringContaining('--events - and --output json both write to stdout'),
    });
  });
});

describe('CI', () => {
  it('annotates a YAML error on its file and line, counted from the top of the file, not of its document', async () => {
    const file = await env.write(
      'broken.yaml',
      `${configMapYaml('fine', { a: '1' })}---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: broken\n  bad: : x\n`,
    );
    const line = configMapYaml('fine', { a: '1' }).split('\n').length + 5;
    const run = await env.kguard(['apply', '-f', file], { env: { GITHUB_ACTIONS: 'true', GITHUB_WORKSPACE: env.dir } });
    expect(run.exitCode, run.output).toBe(1);
    expect(run.stderr).toContain(
      `::error file=broken.yaml,line=${line},title=kguard%3A YAML error::broken.yaml line ${line}: mapping values are not allowed in this context.`,
    );
  });

  it('finishes an in-flight restore when SIGTERM follows SIGINT, as GitHub Actions cancels a step (exit 130)', async () => {
    await env.deployHealthy('sig');
    // The restore's put-back answers 3 s late, so the SIGTERM arrives while it is in flight.
    env.cluster.faults.slowNext(3000, 1, /^PUT \/apis\/apps\/v1\/namespaces\/default\/deployments\/sig\b/);
    const file = await env.write('sig.yaml', deploymentYaml('sig', THROTTLED));
    const running = env.kguardProcess(['apply', '-f', file, ...fast, '--dotenv', 'sig.env', '--events', 'sig.ndjson']);
    await untilWatching(running.output);
    // The stream is written as events happen: the watch is in it while kguard still runs (the
    // file's write may trail the terminal line by a moment).
    const tracking = /"kind":"tracking","workload":\{[^}]*"name":"sig"/;
    expect(
      await eventually(
        async () =>
          (await readFile(join(env.dir, 'sig.ndjson'), 'utf8').catch(() => '')).match(tracking) ? true : undefined,
        10_000,
      ),
    ).toBe(true);
    const dotenv = await readFile(join(env.dir, 'sig.env'), 'utf8');
    expect(dotenv).toMatch(/^KGUARD_OUTCOME=running\nKGUARD_RUN_ID=kguard-[\w-]+\n$/);
    running.child.kill('SIGINT');
    await eventually(() =>
      env.cluster.arrivals.some((request) =>
        /^PUT \/apis\/apps\/v1\/namespaces\/default\/deployments\/sig\b/.test(request),
      )
        ? true
        : undefined,
    );
    running.child.kill('SIGTERM');
    const run = await running.done;
    expect(run.exitCode, run.output).toBe(130);
    expect(run.stderr).toContain(
      'kguard: SIGTERM after SIGINT: the same cancellation (as GitHub Actions sends it); the restore goes on',
    );
    expect(run.stderr).not.toContain('exiting at once');
    expect(run.output).toContain('deployment/sig (namespace default): put back as it was before the apply');
    expect(env.imageOf('sig')).toBe('nginx:1.25');
    expect(await readFile(join(env.dir, 'sig.env'), 'utf8')).toMatch(
      /^KGUARD_OUTCOME=interrupted\nKGUARD_EXIT_CODE=130\nKGUARD_RUN_ID=kguard-[\w-]+\n$/,
    );
    assertValidEventStream(await readFile(join(env.dir, 'sig.ndjson'), 'utf8'), 'the SIGINT-SIGTERM run');
  });
});

describe('seeing what it does', () => {
  it('-q prints the verdict lines only; --junit and --dotenv tell a CI system the same run', async () => {
    const file = await env.write('quiet.yaml', deploymentYaml('quiet', 'nginx:1.25'));
    expect((await env.kguard(['apply', '-f', file, ...fast])).exitCode).toBe(0);
    const broken = await env.write('quiet-broken.yaml', deploymentYaml('quiet', MISSING));
    const run = await env.kguard([
      'apply',
      '-f',
      broken,
      ...fast,
      '-q',
      '--junit',
      'kguard.xml',
      '--dotenv',
      'kguard.env',
    ]);
    expect(run.exitCode, run.output).toBe(3);
    expect(await readFile(join(env.dir, 'kguard.env'), 'utf8')).toMatch(
      /^KGUARD_OUTCOME=rolled-back\nKGUARD_EXIT_CODE=3\nKGUARD_RUN_ID=kguard-[\w-]+\n$/,
    );
    // As GitLab reads the JUnit report: the failed case links to its manifest and shows the diagnosis.
    const [quiet] = gitlabTestCases(await readFile(join(env.dir, 'kguard.xml'), 'utf8'));
    expect(quiet).toMatchObject({
      suite: 'kguard.Deployment',
      name: 'deployment/quiet (namespace default)',
      status: 'failed',
      file: 'quiet-broken.yaml',
    });
    expect(quiet!.systemOutput).toMatch(/^new pods cannot pull image "xxxxxnginx:1.17"/);
    expect(quiet!.systemOutput).toContain('manifest: quiet-broken.yaml line 1');
    expect(quiet!.systemOutput).toMatch(/\nnext: check that image "xxxxxnginx:1.17" exists/);
    expect(quiet!.systemOutput).toContain('restore: restored');
    const lines = run.stdout.split('\n').filter((line) => /^\S/.test(line));
    expect(lines).toEqual([
      expect.stringMatching(/^✖ deployment\/quiet \(namespace default\): new pods cannot pull image/),
      expect.stringMatching(/^↩ deployment\/quiet \(namespace default\): restored and healthy again/),
      '✖ kguard: the apply failed and the cluster was restored to its state before the apply (exit 3)',
    ]);
  });

  it('says its version from package.json, as kguard version (with the runtime) and --version', async () => {
    const { version } = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    expect((await env.kguard(['version'])).stdout.trim()).toMatch(
      new RegExp(
        `^${version.replace(/\./g, '\\.')} \\((JavaScript, node|executable kguard-[a-z0-9-]+, bun) \\d+\\.\\d+\\.\\d+\\)$`,
      ),
    );
    expect((await env.kguard(['--version'])).stdout.trim()).toBe(version);
  });
});
