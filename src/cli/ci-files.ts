// The files a CI job keeps beside the log: --junit (test results) and --dotenv (the outcome for
// later jobs). Courtesies, like the job summary: a file that cannot be written is a warning and
// the exit code stands.
import { writeFileSync } from 'node:fs';
import type { Reporter } from '../model/events.js';
import { dotenvReport } from '../report/ci/dotenv.js';
import type { FailureReport } from '../report/format/failure.js';
import type { JsonReport } from '../report/json.js';
import type { FleetReport } from '../report/fleet.js';
import { cannotWrite } from './events-output.js';
import type { Session } from './session.js';

/** The checkout CI paths are relative to: GitHub's workspace, GitLab's project directory, or here. */
export function workspace(): string {
  return process.env.GITHUB_WORKSPACE || process.env.CI_PROJECT_DIR || process.cwd();
}

export async function writeJunit(session: Session, report: JsonReport | FailureReport): Promise<void> {
  if (!session.junitFile) return;
  const [{ junitXml }, { manifestLocator }] = await Promise.all([
    import('../report/ci/junit.js'),
    import('../manifests/locate.js'),
  ]);
  // Each test case names the manifest file and line of its object, relative to the checkout.
  const locate = session.manifests
    ? manifestLocator(session.manifests.filenames, session.manifests.recursive, workspace())
    : undefined;
  write(session.junitFile, 'JUnit report', () => junitXml(report, new Date(), locate));
}

/** A fleet's JUnit report: one suite per cluster. */
export async function writeFleetJunit(session: Session, report: FleetReport): Promise<void> {
  if (!session.junitFile) return;
  const [{ fleetJunitXml }, { manifestLocator }] = await Promise.all([
    import('../report/ci/junit.js'),
    import('../manifests/locate.js'),
  ]);
  const locate = session.manifests
    ? manifestLocator(session.manifests.filenames, session.manifests.recursive, workspace())
    : undefined;
  write(session.junitFile, 'JUnit report', () => fleetJunitXml(report, new Date(), locate));
}

/** `running` at the start of the run (no exit code yet), the outcome and exit code at its end. */
export async function writeDotenv(
  session: Session,
  outcome: string,
  exitCode?: number,
  runId = session.recorder?.runId,
): Promise<void> {
  if (!session.dotenvFile) return;
  write(session.dotenvFile, 'dotenv report', () => dotenvReport(outcome, exitCode, runId));
}

/**
 * Beside the terminal's reporter: once the run has a journal, the dotenv file says its id while
 * it runs, so a job killed mid-run can finish it with `kguard rollback $KGUARD_RUN_ID`.
 */
export function dotenvWhileRunning(session: Session): Reporter {
  return {
    emit: (event) => {
      if (event.kind === 'journal') void writeDotenv(session, 'running', undefined, event.runId);
    },
    close: () => undefined,
  };
}

function write(file: string, what: string, contents: () => string): void {
  try {
    writeFileSync(file, contents());
  } catch (error) {
    process.stderr.write(`kguard: ${cannotWrite(`the ${what} to ${file}`, error)}\n`);
  }
}
