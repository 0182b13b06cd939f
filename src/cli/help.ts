// What `--help` says beyond the flags: examples, the exit codes and the environment kguard reads.
// The exit codes are the README's table in short; test/cli/help.test.ts keeps the two in step
// with errors.ts.

/** Every exit code kguard can end with, and what it means, in one line each. */
export const EXIT_CODES: ReadonlyArray<readonly [number, string]> = [
  [0, 'healthy: every changed workload rolled out (or nothing changed, or a preview without --diff changes)'],
  [1, 'bad input or usage (nothing applied); with --diff: the apply would change something, as kubectl diff'],
  [2, 'kubectl or the cluster failed before the apply, or refused it (nothing applied)'],
  [3, 'the apply failed and everything it changed was restored (with --rollback none: left as applied)'],
  [4, 'a person must finish: the commands are printed'],
  [5, 'a changed workload was not healthy within --timeout (restored unless --rollback none)'],
  [70, 'internal error: a bug in kguard'],
  [130, 'cancelled (SIGINT, SIGTERM, SIGHUP): what the apply changed was restored'],
];

/** The environment variables kguard reads (kubectl reads its own besides). */
export const ENVIRONMENT: ReadonlyArray<readonly [string, string]> = [
  ['KUBECONFIG', 'the kubeconfig files, as for kubectl (or --kubeconfig)'],
  ['KGUARD_KUBECTL', 'the kubectl binary to run (default: kubectl on PATH)'],
  ['GITHUB_ACTIONS', 'true: ::error annotations and a job summary in $GITHUB_STEP_SUMMARY'],
  ['GITHUB_STEP_SUMMARY', 'the job summary file GitHub Actions provides'],
  ['GITHUB_WORKSPACE', 'the checkout annotations are relative to'],
  ['GITLAB_CI', 'true: each phase is a collapsible section of the job log'],
  ['CI', 'set: plain lines, no spinner'],
  ['NO_COLOR, FORCE_COLOR', 'turn colours off (NO_COLOR, FORCE_COLOR=0) or on (FORCE_COLOR=1)'],
];

export function applyHelp(program: string): string {
  const examples = [
    ['apply, watch, restore everything on failure', `${program} apply -f k8s/`],
    [
      'only the objects labelled app=web, pruning the ones gone from k8s/',
      `${program} apply -f k8s/ -l app=web --prune`,
    ],
    ['as another user, on another cluster', `${program} apply -f web.yaml --context prod --as deployer`],
    [
      'a fleet: staging first, then eu-1 and us-1 in parallel; all restored if one fails',
      `${program} apply -f web.yaml --contexts eu-1,us-1 --canary staging`,
    ],
    ['what would change, as kubectl diff (exit 1 when something would)', `${program} apply -f k8s/ --diff`],
    [
      'for CI: a JSON report, a JUnit file and an NDJSON event stream',
      `${program} apply -f k8s/ -o json --junit kguard.xml --events events.ndjson`,
    ],
    ['any other kubectl apply flag, after --', `${program} apply -f k8s/ -- --openapi-patch=false`],
  ];
  return [
    '',
    'Examples:',
    ...examples.flatMap(([what, command]) => [`  # ${what}`, `  ${command}`]),
    '',
    'Exit codes:',
    ...EXIT_CODES.map(([code, meaning]) => `  ${String(code).padEnd(4)}${meaning}`),
    '',
    'Environment:',
    ...ENVIRONMENT.map(([name, meaning]) => `  ${name.padEnd(22)}${meaning}`),
  ].join('\n');
}
