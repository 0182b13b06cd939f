// Robustness end to end: the real bin/kguard, the real kubectl, the simulated cluster with its
// faults. kguard never hangs and never dies half-way, prints nothing the cluster could use to
// steer a terminal or a CI runner, never prints a Secret value, reports every way it can end,
// and says plainly what is wrong.
import { execSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import type { ClusterOptions } from '../kube-sim/cluster.js';
import { deploymentYaml, kubectl } from '../kube-sim/testing/kubectl.js';
import { checkJsonReport, eventually, KGUARD, sandbox, type KguardRun, type Sandbox } from './harness.js';
import { sandboxFor } from './run-fixtures.js';

const MISSING_IMAGE = 'nginx:9.99';
const SCENARIO: ClusterOptions = { scenario: { registry: { [MISSING_IMAGE]: 'missing' } } };

let env: Sandbox;
sandboxFor(
  () => sandbox(SCENARIO),
  (fresh) => (env = fresh),
);

/** The environment the harness gives kguard (CI, no colour), with changes; undefined removes a variable. */
function kguardEnv(changes: Record<string, string | undefined> = {}): Record<string, string> {
  const merged: Record<string, string | undefined> = {
    ...process.env,
    ...env.cluster.env,
    CI: 'true',
    NO_COLOR: '1',
    ...changes,
  };
  return Object.fromEntries(
    Object.entries(merged).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
}

/** Starts kguard with its own environment; `done` resolves with the run and how long it took. */
function start(args: string[], changes: Record<string, string | undefined> = {}) {
  const began = Date.now();
  const child = execa(KGUARD, args, {
    cwd: env.dir,
    reject: false,
    stdin: 'ignore',
    env: kguardEnv(changes),
    extendEnv: false,
    timeout: 120_000,
    forceKillAfterDelay: false,
  });
  const done = child.then((result): KguardRun & { seconds: number } => {
    const run = {
      exitCode: result.exitCode ?? -1,
      stdout: String(result.stdout ?? ''),
      stderr: String(result.stderr ?? ''),
      output: `${String(result.stdout ?? '')}\n${String(result.stderr ?? '')}`,
      seconds: (Date.now() - began) / 1000,
    };
    checkJsonReport(args, run);
    return run;
  });
  return { child, done };
}

const run = (args: string[], changes: Record<string, string | undefined> = {}) => start(args, changes).done;

/** Requests that could change the cluster: any write that is not a dry run. */
function writes(): string[] {
  return env.cluster.requests
    .filter((request) => request.method !== 'GET' && !/dryRun=All/.test(request.url))
    .map((request) => `${request.method} ${request.url}`);
}

function failedRequests(method: string, pathPart: string, status: number) {
  return env.cluster.requests.filter(
    (request) => request.method === method && request.url.includes(pathPart) && request.status === status,
  );
}

/** A kubectl for KGUARD_KUBECTL that does not exec the real one: on the real apply it first hangs
 *  in a child process that keeps stdout and stderr open, as a stuck credential plugin would. It
 *  hangs once its input has come: the apply's kubectl starts during the guard with its stdin held
 *  back (run/apply/guard.ts), and the apply is under way only once that input is sent. */
async function hangingKubectl(marker: number): Promise<string> {
  const file = await env.write(
    `kubectl-hangs-${marker}`,
    `#!/bin/sh\ncase " $* " in\n  *" apply "*) case " $* " in *" --dry-run="*) ;; *) cat > /dev/null; sleep ${marker} ;; esac ;;\nesac\nkubectl "$@"\n`,
  );
  await chmod(file, 0o755);
  return file;
}

function processRunning(args: string): boolean {
  return execSync('ps -eo args', { encoding: 'utf8' })
    .split('\n')
    .some((line) => line.trim() === args);
}

const hasScript = existsSync('/usr/bin/script') || existsSync('/bin/script');

/** Runs a shell command on a real pseudo-terminal of the given width (util-linux script). */
async function onTerminal(command: string, columns: number, changes: Record<string, string | undefined>) {
  const began = Date.now();
  const result = await execa('script', ['-qec', `stty cols ${columns} rows 40; ${command}`, '/dev/null'], {
    cwd: env.dir,
    reject: false,
    stdin: 'ignore',
    env: kguardEnv({ CI: undefined, NO_COLOR: undefined, FORCE_COLOR: undefined, TERM: 'xterm-256color', ...changes }),
    extendEnv: false,
    timeout: 90_000,
  });
  return {
    exitCode: result.exitCode ?? -1,
    output: String(result.stdout ?? ''),
    seconds: (Date.now() - began) / 1000,
    timedOut: result.timedOut,
  };
}

// eslint-disable-next-line no-control-regex
const SGR = /\u001b\[[0-9;]*m/;

describe('bullet 6: never hang, never die half-way', () => {
  it('kills the whole process tree of an apply that hangs past --timeout, and says it was killed', async () => {
    await env.deployHealthy('web');
    const file = await env.write('web.yaml', deploymentYaml('web', 'nginx:1.26'));
    const result = await run(['apply', '-f', file, '--timeout', '3s'], { KGUARD_KUBECTL: await hangingKubectl(617) });
    expect(result.exitCode, result.output).toBe(2);
    expect(result.stderr).toContain('kubectl did not apply the manifests within 3s (--timeout) and was killed');
    // The wrapper's child held the pipes; killing only the wrapper would have waited 617 s.
    expect(result.seconds).toBeLessThan(30);
    await eventually(() => (processRunning('sleep 617') ? undefined : true), 5000);
    expect(env.imageOf('web')).toBe('nginx:1.25');
  });

  it('keeps watching and restoring when stdout and stderr are closed (| head -1), and keeps the exit code', async () => {
    await env.deployHealthy('web');
    const file = await env.write('bad.yaml', deploymentYaml('web', MISSING_IMAGE));
    const script = `'${KGUARD}' apply -f '${file}' --poll-interval 300ms 2>&1 | head -n 1; echo "kguard-exit=\${PIPESTATUS[0]}"`;
    const result = await execa('bash', ['-c', script], {
      cwd: env.dir,
      reject: false,
      env: kguardEnv(),
      extendEnv: false,
      timeout: 90_000,
    });
    const lines = String(result.stdout).trim().split('\n');
    expect(lines, String(result.stdout)).toHaveLength(2);
    expect(lines[1]).toBe('kguard-exit=3');
    expect(env.imageOf('web')).toBe('nginx:1.25');
  });

  it.skipIf(!hasScript)(
    'prints plain lines instead of a spinner on a terminal 0 columns wide, and finishes',
    async () => {
      const file = await env.write('web.yaml', deploymentYaml('web', 'nginx:1.25'));
      const result = await onTerminal(`'${KGUARD}' apply -f '${file}' --poll-interval 300ms`, 0, {});
      expect(result.timedOut).toBe(false);
      expect(result.exitCode, result.output).toBe(0);
      expect(result.output).toMatch(/kguard: every changed object was applied/);
      // Progress as a plain line, and no spinner: ora would count Infinity lines to clear.
      expect(result.output).toMatch(/^• deployment\/web \(namespace default\): \d\/2 new pods ready/m);
      expect(result.output).not.toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/);
      expect(result.seconds).toBeLessThan(60);
    },
  );

  it('answers SIGTERM just after the apply: restores, exit 130, a JSON report and an annotation', async () => {
    await env.deployHealthy('web');
    const file = await env.write('bad.yaml', deploymentYaml('web', MISSING_IMAGE));
    const { child, done } = start(['apply', '-f', file, '--poll-interval', '300ms', '-o', 'json'], {
      GITHUB_ACTIONS: 'true',
    });
    await eventually(() => (env.imageOf('web') === MISSING_IMAGE ? true : undefined));
    const signalledAt = Date.now();
    child.kill('SIGTERM');
    const result = await done;
    expect((Date.now() - signalledAt) / 1000).toBeLessThan(20);
    expect(result.exitCode, result.output).toBe(130);
    expect(result.stderr).toContain('kguard: SIGTERM: stopping');
    expect(result.stderr).toMatch(/^::error title=kguard::/m);
    expect(JSON.parse(result.stdout)).toMatchObject({ outcome: 'interrupted', exitCode: 130 });
    expect(env.imageOf('web')).toBe('nginx:1.25');
  });

  it('answers SIGINT while kubectl apply hangs at once, and a second SIGINT stops the hung kubectl and exits 130 with a report', async () => {
    await env.deployHealthy('web');
    const file = await env.write('web.yaml', deploymentYaml('web', 'nginx:1.26'));
    const { child, done } = start(['apply', '-f', file, '-o', 'json'], {
      KGUARD_KUBECTL: await hangingKubectl(618),
      GITHUB_ACTIONS: 'true',
    });
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    await eventually(() => (processRunning('sleep 618') ? true : undefined));
    child.kill('SIGINT');
    // The first signal is answered while the apply still hangs (a write is never cut short).
    await eventually(() => (stderr.includes('kguard: SIGINT: stopping') ? true : undefined), 5000);
    const signalledAt = Date.now();
    child.kill('SIGINT');
    const result = await done;
    expect((Date.now() - signalledAt) / 1000).toBeLessThan(10);
    expect(result.exitCode, result.output).toBe(130);
    expect(result.stderr).toContain('kguard: SIGINT again: exiting at once (exit 130)');
    expect(result.stderr).toMatch(/^::error title=kguard::SIGINT again/m);
    expect(JSON.parse(result.stdout)).toMatchObject({ outcome: 'interrupted', exitCode: 130 });
    await eventually(() => (processRunning('sleep 618') ? undefined : true), 5000);
  });

  it('warns about an unwritable $GITHUB_STEP_SUMMARY and still exits 0', async () => {
    const file = await env.write('web.yaml', deploymentYaml('web', 'nginx:1.25'));
    const result = await run(['apply', '-f', file, '--poll-interval', '300ms'], {
      GITHUB_ACTIONS: 'true',
      GITHUB_STEP_SUMMARY: join(env.dir, 'no-such-directory', 'summary.md'),
    });
    expect(result.exitCode, result.output).toBe(0);
    expect(result.stderr).toMatch(/^::warning title=kguard::could not write the job summary to \$GITHUB_STEP_SUMMARY/m);
  });
});

describe('bullet 7: text from the cluster is sanitised, Secret values never printed', () => {
  // The kubelet quotes the image name in its InvalidImageName message, so an image name is a
  // way to put any text into what the cluster says about a pod.
  const HOSTILE =
    'nginx:9.99\u001b[31mRED\u001b[0m\u001b]0;owned\u0007 \u202ereversed\u202c\n::error title=pwned::injected\r::warning ::also\n' +
    '  ::stop-commands::tok\n##[error]old-style section_start:1:evil';

  it('strips escapes and control characters and neutralises workflow commands in the log, the annotations and the summary', async () => {
    await env.deployHealthy('web');
    const summary = join(env.dir, 'summary.md');
    const file = await env.write('hostile.yaml', deploymentYaml('web', JSON.stringify(HOSTILE)));
    const result = await run(['apply', '-f', file, '--poll-interval', '300ms'], {
      GITHUB_ACTIONS: 'true',
      GITHUB_STEP_SUMMARY: summary,
    });
    expect(result.exitCode, result.output).toBe(3);
    // The kubelet's message did reach the output, so the checks below can fail.
    expect(result.stdout).toMatch(/InvalidImageName: .*RED/);
    expect(result.stdout).toContain('injected');
    const everything = `${result.stdout}\n${result.stderr}\n${await readFile(summary, 'utf8')}`;
    // eslint-disable-next-line no-control-regex
    expect(everything).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f\u202e]/);
    expect(everything).not.toContain('##[');
    expect(everything).not.toContain('section_start:');
    for (const line of everything.split('\n')) {
      if (/^\s*::/.test(line))
        expect(line).toMatch(
          /^::(error|warning) (file=hostile\.yaml,line=1,title=kguard%3A deployment\/web \(namespace default\)|title=kguard)::/,
        );
    }
    expect(env.imageOf('web')).toBe('nginx:1.25');
  });

  it('redacts every form of a Secret value that kubectl quotes in a refused dry run, in the log, the annotation and the JSON', async () => {
    const secret = (password: string, token: string) => `apiVersion: v1
kind: Secret
metadata:
  name: creds
stringData:
  password: '${password}'
data:
  token: ${Buffer.from(token).toString('base64')}
`;
    const first = await env.write('creds-1.yaml', secret('old-Passw0rd', 'old-token-123'));
    expect((await kubectl(env.cluster, ['apply', '-f', first])).exitCode).toBe(0);
    const setupWrites = writes().length;
    const file = await env.write('creds-2.yaml', secret('hunter2"Sekr3t', 'tok-Abc123xyz'));
    // Every dry run of the Secret fails: kubectl prints the whole patch it sent, with the values
    // (and the last-applied annotation quoting them again).
    env.cluster.faults.failNext(500, 50, /^PATCH [^?]*\/secrets\/creds\?.*dryRun=All/);
    const result = await run(['apply', '-f', file, '-o', 'json'], { GITHUB_ACTIONS: 'true' });
    expect(result.exitCode, result.output).toBe(2);
    expect(result.output).toContain('[redacted]');
    for (const leaked of [
      'Sekr3t',
      Buffer.from('hunter2"Sekr3t').toString('base64'),
      'tok-Abc123xyz',
      Buffer.from('tok-Abc123xyz').toString('base64'),
    ]) {
      expect(result.output).not.toContain(leaked);
    }
    expect(JSON.parse(result.stdout)).toMatchObject({ outcome: 'error', exitCode: 2 });
    expect(result.stderr).toMatch(/^::error title=kguard::/m);
    expect(writes().slice(setupWrites)).toEqual([]);
  });
  it('redacts the Secret values of manifests piped on stdin, learnt from the copy kubectl reads', async () => {
    const secret = (password: string) =>
      `apiVersion: v1\nkind: Secret\nmetadata:\n  name: piped\nstringData:\n  password: '${password}'\n`;
    const first = await env.write('piped-1.yaml', secret('old-Piped-1'));
    expect((await kubectl(env.cluster, ['apply', '-f', first])).exitCode).toBe(0);
    env.cluster.faults.failNext(500, 50, /^PATCH [^?]*\/secrets\/piped\?.*dryRun=All/);
    const result = await env.kguard(['apply', '-f', '-'], { input: secret('Piped-Sekr3t-42') });
    expect(result.exitCode, result.output).toBe(2);
    expect(result.output).toContain('[redacted]');
    for (const leaked of ['Piped-Sekr3t-42', Buffer.from('Piped-Sekr3t-42').toString('base64')])
      expect(result.output).not.toContain(leaked);
  });
});

describe('bullet 8: a JSON report and an ::error annotation on every failing path', () => {
  const githubJson = { GITHUB_ACTIONS: 'true' };

  it.each([
    [['apply', '--bogus', '-o', 'json'], 'unknown option'],
    [['apply', '-f', 'x.yaml', '--output=json', '--rollback', 'sometimes'], 'sometimes'],
    [['apply', '--output', 'json', '-f', 'missing.yaml'], 'no such file or directory'],
  ])('%j: exit 1 with a JSON error report and an annotation', async (args, says) => {
    const result = await run(args, githubJson);
    expect(result.exitCode, result.output).toBe(1);
    const report = JSON.parse(result.stdout) as { outcome: string; exitCode: number; error: string };
    expect(report).toMatchObject({ reportVersion: 3, outcome: 'error', exitCode: 1 });
    expect(report.error).toContain(says);
    expect(result.stderr).toMatch(/^::error title=kguard::/m);
  });

  it('reports a kubectl failure (cluster unreachable) as JSON with exit 2 and an annotation', async () => {
    const file = await env.write('web.yaml', deploymentYaml('web', 'nginx:1.25'));
    await env.cluster.faults.unreachable();
    const result = await run(['apply', '-f', file, '-o', 'json'], githubJson);
    expect(result.exitCode, result.output).toBe(2);
    expect(JSON.parse(result.stdout)).toMatchObject({ outcome: 'error', exitCode: 2 });
    expect(result.stderr).toMatch(/^::error title=kguard::.*refused/m);
  });

  it('annotates a rolled-back rollout (exit 3) in GitHub Actions', async () => {
    await env.deployHealthy('web');
    const file = await env.write('bad.yaml', deploymentYaml('web', MISSING_IMAGE));
    const result = await run(['apply', '-f', file, '--poll-interval', '300ms', '-o', 'json'], githubJson);
    expect(result.exitCode, result.output).toBe(3);
    expect(JSON.parse(result.stdout)).toMatchObject({ exitCode: 3 });
    expect(result.stderr).toMatch(/^::error title=kguard::kguard: the apply failed and the cluster was restored/m);
  });
});

describe('bullet 10: smaller defects', () => {
  it('says a missing --kubeconfig file or KUBECONFIG is missing, exit 1, before calling kubectl', async () => {
    const file = await env.write('web.yaml', deploymentYaml('web', 'nginx:1.25'));
    const flag = await run(['apply', '-f', file, '--kubeconfig', join(env.dir, 'nope.yaml')]);
    expect(flag.exitCode, flag.output).toBe(1);
    expect(flag.stderr).toContain(`the kubeconfig file ${join(env.dir, 'nope.yaml')} (--kubeconfig) does not exist`);
    const variable = await run(['apply', '-f', file], { KUBECONFIG: join(env.dir, 'gone.yaml') });
    expect(variable.exitCode, variable.output).toBe(1);
    expect(variable.stderr).toContain(`KUBECONFIG names ${join(env.dir, 'gone.yaml')}, and no such file exists`);
    expect(variable.stderr).not.toContain('current-context');
    expect(env.cluster.requests).toHaveLength(0);
  });

  it('quotes kubectl for an unknown context instead of pointing at an error above', async () => {
    const file = await env.write('web.yaml', deploymentYaml('web', 'nginx:1.25'));
    const result = await run(['apply', '-f', file, '--context', 'nope']);
    expect(result.exitCode, result.output).toBe(1);
    expect(result.stderr).toContain('context "nope" does not exist');
    expect(result.stderr).toContain('kubectl config get-contexts');
    expect(result.stderr).not.toContain('error above');
  });

  it('exits 1 for a missing namespace and says to create it', async () => {
    const file = await env.write('web.yaml', deploymentYaml('web', 'nginx:1.25', { namespace: 'shop' }));
    const result = await run(['apply', '-f', file]);
    expect(result.exitCode, result.output).toBe(1);
    expect(result.stderr).toContain('create the namespace shop first (kubectl create namespace shop)');
    expect(writes()).toEqual([]);
  });

  it('names an unknown kind, its version and file, and says to install the CRD', async () => {
    const file = await env.write(
      'widget.yaml',
      'apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\nspec: {}\n',
    );
    const result = await run(['apply', '-f', file]);
    expect(result.exitCode, result.output).toBe(1);
    expect(result.stderr).toContain(
      `the cluster does not know kind Widget in version example.com/v1 (${file}, Widget "w")`,
    );
    expect(result.stderr).toContain('install the CustomResourceDefinition that defines Widget');
    expect(writes()).toEqual([]);
  });

  it('says why a download failed, not only "fetch failed"', async () => {
    const port = await closedPort();
    const result = await run(['apply', '-f', `http://127.0.0.1:${port}/web.yaml`]);
    expect(result.exitCode, result.output).toBe(1);
    expect(result.stderr).toContain(`(connection refused: connect ECONNREFUSED 127.0.0.1:${port})`);
  });

  it('strips the klog header from a kustomize error', async () => {
    const directory = join(env.dir, 'overlay');
    await mkdir(directory);
    await env.write('overlay/kustomization.yaml', 'resources:\n- missing.yaml\n');
    const result = await run(['apply', '-k', directory]);
    expect(result.exitCode, result.output).toBe(1);
    expect(result.stderr).toContain('accumulating resources');
    expect(result.stderr).not.toMatch(/[IWEF]\d{4} \d\d:\d\d:\d\d\.\d+\s+\d+ \S+:\d+\]/);
    expect(result.stderr).not.toContain('"command failed"');
  });

  it('calls a failing API server in the dry run a cluster error (exit 2), without advice about flags kguard lacks', async () => {
    const file = await env.write('web.yaml', deploymentYaml('web', 'nginx:1.25'));
    env.cluster.faults.failNext(504, 50, /dryRun=All/);
    const result = await run(['apply', '-f', file]);
    expect(result.exitCode, result.output).toBe(2);
    expect(result.stderr).toContain('Timeout: request did not complete within the allotted timeout');
    expect(result.output).not.toContain('--request-timeout');
  });

  it('explains ready pods that are not yet available (minReadySeconds) instead of contradicting itself', async () => {
    const yaml = deploymentYaml('web', 'nginx:1.25').replace(
      'spec:\n  replicas: 2',
      'spec:\n  minReadySeconds: 30\n  replicas: 2',
    );
    expect(yaml).toContain('minReadySeconds: 30');
    const file = await env.write('web.yaml', yaml);
    const result = await run(['apply', '-f', file, '--poll-interval', '300ms']);
    expect(result.exitCode, result.output).toBe(0);
    expect(result.stdout).toContain('ready pods count as available after minReadySeconds (30s)');
    expect(result.stdout).not.toMatch(/(\d+)\/\1 new pods ready[^\n]*: 0 of \1 updated replicas are available\n/);
  });

  it.each([
    [['--no-rollback', '--rollback', 'all'], /--no-rollback and --rollback all contradict each other/],
    [['--rollback', 'failed', '--no-rollback'], /--rollback failed and --no-rollback contradict each other/],
    [['--rollback-timeout', '0'], /--rollback-timeout must be longer than 0s/],
    [['--timeout', '600h'], /--timeout 600h is too long/],
    [['--settle', '2147484s'], /--settle 2147484s is too long/],
  ])('refuses %j, exit 1, nothing sent', async (flags, says) => {
    const file = await env.write('web.yaml', deploymentYaml('web', 'nginx:1.25'));
    const result = await run(['apply', '-f', file, ...flags]);
    expect(result.exitCode, result.output).toBe(1);
    expect(result.stderr).toMatch(says);
    expect(env.cluster.requests).toHaveLength(0);
  });

  it.skipIf(!hasScript)(
    'turns colour off with FORCE_COLOR=0 and NO_COLOR on a terminal, spinner included',
    async () => {
      // Each run changes the image, so each has a rollout to watch with the spinner.
      const command = async (image: string) =>
        `'${KGUARD}' apply -f '${await env.write(`web-${image}.yaml`, deploymentYaml('web', image))}' --poll-interval 300ms`;
      // On a terminal the spinner runs and colours, so the checks below can fail.
      const coloured = await onTerminal(await command('nginx:1.25'), 100, {});
      expect(coloured.exitCode, coloured.output).toBe(0);
      expect(coloured.output).toMatch(SGR);
      for (const [image, changes] of [
        ['nginx:1.26', { FORCE_COLOR: '0' }],
        ['nginx:1.27', { NO_COLOR: '1' }],
      ] as const) {
        const plain = await onTerminal(await command(image), 100, changes);
        expect(plain.exitCode, plain.output).toBe(0);
        expect(plain.output, JSON.stringify(changes)).not.toMatch(SGR);
        // The spinner did run, uncoloured.
        expect(plain.output).toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/);
        expect(plain.output).toMatch(/kguard: every changed object was applied/);
      }
    },
  );

  it('retries a write answered once with 500: the apply goes through', async () => {
    await env.deployHealthy('web');
    const file = await env.write('web.yaml', deploymentYaml('web', 'nginx:1.26'));
    env.cluster.faults.failNext(500, 1, /^PATCH [^?]*\/deployments\/web\?(?!.*dryRun)/);
    const result = await run(['apply', '-f', file, '--poll-interval', '300ms']);
    expect(result.exitCode, result.output).toBe(0);
    expect(failedRequests('PATCH', '/deployments/web', 500)).toHaveLength(1);
    expect(env.imageOf('web')).toBe('nginx:1.26');
  });

  it("retries the restore's PUT answered once with 503, and restores", async () => {
    await env.deployHealthy('web');
    const file = await env.write('bad.yaml', deploymentYaml('web', MISSING_IMAGE));
    env.cluster.faults.failNext(503, 1, /^PUT [^?]*\/deployments\/web\?/);
    const result = await run(['apply', '-f', file, '--poll-interval', '300ms']);
    expect(result.exitCode, result.output).toBe(3);
    expect(failedRequests('PUT', '/deployments/web', 503)).toHaveLength(1);
    expect(env.imageOf('web')).toBe('nginx:1.25');
  });

  it("retries the restore's DELETE of a created object answered once with 500, and deletes it", async () => {
    const file = await env.write('new.yaml', deploymentYaml('fresh', MISSING_IMAGE));
    env.cluster.faults.failNext(500, 1, /^DELETE [^?]*\/deployments\/fresh/);
    const result = await run(['apply', '-f', file, '--poll-interval', '300ms']);
    expect(result.exitCode, result.output).toBe(3);
    expect(failedRequests('DELETE', '/deployments/fresh', 500)).toHaveLength(1);
    expect(env.cluster.store.get('Deployment', 'default', 'fresh')).toBeUndefined();
  });
});

/** A local port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
