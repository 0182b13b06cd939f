// --dotenv FILE: the run's outcome as KEY=VALUE lines, for GitLab's artifacts:reports:dotenv, which
// hands them to later jobs as variables (and to the job's own after_script, read from the file).
// Written as `running` when the run starts and rewritten when it ends, so a job killed in between
// (a cancelled GitLab job) leaves `KGUARD_OUTCOME=running`: what the after_script recipe in the
// README looks for. Values are kguard's own words and numbers, never cluster text. Pure.

export function dotenvReport(outcome: string, exitCode: number | undefined, runId?: string): string {
  return [
    `KGUARD_OUTCOME=${outcome}`,
    ...(exitCode === undefined ? [] : [`KGUARD_EXIT_CODE=${exitCode}`]),
    ...(runId ? [`KGUARD_RUN_ID=${runId}`] : []),
    '',
  ].join('\n');
}
