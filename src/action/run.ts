// The GitHub Action's step: runs kguard apply with the inputs, keeps the JSON report in a file,
// and sets the step's outputs (outcome, exit-code, report, junit). kguard itself writes the
// annotations and the job summary (it sees GITHUB_ACTIONS=true). The step's exit code is kguard's.
import { spawn } from 'node:child_process';
import { appendFileSync, closeSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { constants, tmpdir } from 'node:os';
import path from 'node:path';
import { credentialValues } from '../kubectl/passthrough.js';
import { maskCredentials } from '../kubectl/process/trace.js';
import { escapeData } from '../report/ci/github.js';
import { kguardArgs, kubeconfigInput, kubeconfigSecrets, readInputs } from './inputs.js';

/** How to start kguard: the program and its first arguments, and what its environment adds. */
export interface KguardLauncher {
  command: string;
  args: string[];
  env?: Record<string, string>;
}

export async function runAction(kguard: KguardLauncher, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const temp = env.RUNNER_TEMP || tmpdir();
  const stamp = `${process.pid}-${Date.now()}`;
  // Later steps run kguard too (`if: cancelled()` → kguard rollback, kguard status, kguard undo).
  putOnPath(kguard, env, path.join(temp, `kguard-bin-${stamp}`));
  let args: string[];
  let junit: string;
  try {
    const inputs = readInputs(env);
    junit = inputs.junit ?? path.join(temp, `kguard-junit-${stamp}.xml`);
    const kubeconfig = kubeconfigInput(inputs.kubeconfig);
    // The runner masks these in every later line of the job log, whoever prints them.
    const secrets = [
      ...credentialValues(inputs.extraArgs),
      ...(kubeconfig && 'content' in kubeconfig ? kubeconfigSecrets(kubeconfig.content) : []),
    ];
    for (const secret of secrets) process.stdout.write(`::add-mask::${secret}\n`);
    let kubeconfigPath: string | undefined;
    if (kubeconfig && 'content' in kubeconfig) {
      // A secret's text: a private file, never an argument or a log line.
      kubeconfigPath = path.join(temp, `kguard-kubeconfig-${stamp}`);
      writeFileSync(kubeconfigPath, `${kubeconfig.content}\n`, { mode: 0o600 });
    } else if (kubeconfig) {
      kubeconfigPath = kubeconfig.path;
    }
    args = kguardArgs(inputs, { kubeconfig: kubeconfigPath, junit });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    process.stdout.write(`::error title=kguard::${escapeData(message)}\n`);
    // A diff preview speaks kubectl diff's codes: an error is 2, as kguard --diff's own.
    const code = /^true$/i.test((env.INPUT_DIFF ?? '').trim()) ? 2 : 1;
    setOutputs(env, { outcome: 'error', 'exit-code': String(code), report: '', junit: '', 'run-id': '' });
    return code;
  }
  const report = path.join(temp, `kguard-report-${stamp}.json`);
  const reportFd = openSync(report, 'w', 0o600);
  // As kguard -v prints its kubectl commands: --token and --password masked.
  process.stderr.write(`kguard ${maskCredentials(args).join(' ')}\n`);
  // The inputs (a kubeconfig's text among them) stay with this process, not with kguard's kubectl.
  const childEnv = Object.fromEntries(Object.entries(env).filter(([name]) => !name.startsWith('INPUT_')));
  // Its own process group: a signal the runner sends to this step reaches kguard exactly once,
  // from here, whether the runner signals this process or its whole group. GitHub cancels with
  // SIGINT, then SIGTERM 7.5 s later: both are passed on, and kguard takes them as one cancellation.
  const child = spawn(kguard.command, [...kguard.args, ...args], {
    stdio: ['ignore', reportFd, 'inherit'],
    detached: true,
    env: { ...childEnv, ...kguard.env },
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal));
  const exitCode = await new Promise<number>((resolve) => {
    child.on('exit', (code, signal) => resolve(code ?? 128 + (signal ? constants.signals[signal] : 0)));
    child.on('error', (error) => {
      process.stdout.write(`::error title=kguard::${escapeData(`could not start kguard: ${error.message}`)}\n`);
      resolve(70);
    });
  });
  closeSync(reportFd);
  const { outcome, runId } = reportIn(report);
  setOutputs(env, { outcome, 'exit-code': String(exitCode), report, junit, 'run-id': runId });
  return exitCode;
}

/** The report's outcome, and its run id when the run wrote a journal (empty otherwise). */
function reportIn(report: string): { outcome: string; runId: string } {
  try {
    const parsed = JSON.parse(readFileSync(report, 'utf8')) as { outcome?: unknown; runId?: unknown };
    return {
      outcome: typeof parsed.outcome === 'string' ? parsed.outcome : 'error',
      runId: typeof parsed.runId === 'string' ? parsed.runId : '',
    };
  } catch {
    return { outcome: 'error', runId: '' };
  }
}

/**
 * A `kguard` launcher (a sh script around this action's own bundle, with the runner's Node) in a
 * directory appended to $GITHUB_PATH: every later step of the job has `kguard` on its PATH.
 */
function putOnPath(kguard: KguardLauncher, env: NodeJS.ProcessEnv, directory: string): void {
  if (!env.GITHUB_PATH) return;
  try {
    mkdirSync(directory, { recursive: true });
    const quote = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`;
    const exports = Object.entries(kguard.env ?? {}).map(([name, value]) => `${name}=${quote(value)} `);
    writeFileSync(
      path.join(directory, 'kguard'),
      `#!/bin/sh\n${exports.join('')}exec ${[kguard.command, ...kguard.args].map(quote).join(' ')} "$@"\n`,
      { mode: 0o755 },
    );
    appendFileSync(env.GITHUB_PATH, `${directory}\n`);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    process.stdout.write(
      `::warning title=kguard::${escapeData(`could not put kguard on PATH for later steps (${message}); they can run it with node and this action's action-dist/index.mjs`)}\n`,
    );
  }
}

/** Step outputs: name=value lines appended to $GITHUB_OUTPUT (the values hold no newline). */
function setOutputs(env: NodeJS.ProcessEnv, outputs: Record<string, string>): void {
  const lines = Object.entries(outputs)
    .map(([name, value]) => `${name}=${value}\n`)
    .join('');
  if (env.GITHUB_OUTPUT) appendFileSync(env.GITHUB_OUTPUT, lines);
  else process.stdout.write(lines);
}
