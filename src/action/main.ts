// The GitHub Action's step (action.yml): runs kguard apply with the inputs, keeps the JSON report
// in a file, and sets the step's outputs (outcome, exit-code, report). kguard itself writes the
// annotations and the job summary (it sees GITHUB_ACTIONS=true). The step's exit code is kguard's.
import { spawn } from 'node:child_process';
import { appendFileSync, closeSync, openSync, readFileSync } from 'node:fs';
import { constants, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { escapeData } from '../report/github.js';
import { kguardArgs, readInputs } from './inputs.js';

const KGUARD = fileURLToPath(new URL('../../../bin/kguard', import.meta.url));

async function main(): Promise<number> {
  const env = process.env;
  let args: string[];
  try {
    args = kguardArgs(readInputs(env));
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    process.stdout.write(`::error title=kguard::${escapeData(message)}\n`);
    setOutputs(env, { outcome: 'error', 'exit-code': '1', report: '' });
    return 1;
  }
  const report = path.join(env.RUNNER_TEMP || tmpdir(), `kguard-report-${process.pid}-${Date.now()}.json`);
  const reportFd = openSync(report, 'w', 0o600);
  process.stderr.write(`kguard ${args.join(' ')}\n`);
  // Its own process group: a signal the runner sends to this step reaches kguard exactly once,
  // from here, whether the runner signals this process or its whole group.
  const child = spawn(process.execPath, [KGUARD, ...args], { stdio: ['ignore', reportFd, 'inherit'], detached: true });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal));
  const exitCode = await new Promise<number>((resolve) => {
    child.on('exit', (code, signal) => resolve(code ?? 128 + (signal ? constants.signals[signal] : 0)));
    child.on('error', (error) => {
      process.stdout.write(`::error title=kguard::${escapeData(`could not start kguard: ${error.message}`)}\n`);
      resolve(70);
    });
  });
  closeSync(reportFd);
  setOutputs(env, { outcome: outcomeIn(report), 'exit-code': String(exitCode), report });
  return exitCode;
}

function outcomeIn(report: string): string {
  try {
    const parsed = JSON.parse(readFileSync(report, 'utf8')) as { outcome?: unknown };
    return typeof parsed.outcome === 'string' ? parsed.outcome : 'error';
  } catch {
    return 'error';
  }
}

/** Step outputs: name=value lines appended to $GITHUB_OUTPUT (the values hold no newline). */
function setOutputs(env: NodeJS.ProcessEnv, outputs: Record<string, string>): void {
  const lines = Object.entries(outputs).map(([name, value]) => `${name}=${value}\n`).join('');
  if (env.GITHUB_OUTPUT) appendFileSync(env.GITHUB_OUTPUT, lines);
  else process.stdout.write(lines);
}

process.exitCode = await main();
