// --junit FILE: the run as a JUnit XML report, which GitLab (artifacts:reports:junit), Jenkins and
// most CI systems show as test results. One test case per object of the apply: a tracked workload
// passes when it rolled out and fails with kguard's diagnosis, whole: GitLab shows only the text
// of <failure> (never its message attribute) and knows nothing of kguard's log, so the text holds
// the evidence, the container's last lines, the next step and what the restore did. An object
// the apply left unchanged passes (kguard checked it: nothing to do); one whose watch stopped
// (another workload failed, or the run was cancelled) is skipped. A test case names the manifest
// file and line of its object (`file` and `line`, which GitLab and the JUnit reporting actions for GitHub read:
// https://docs.gitlab.com/ci/testing/unit_test_reports/). Built from the JSON report, so both
// always say the same. Pure.
import { analysisCases } from './junit-analysis.js';
import type { ObjectRef } from '../../objects/model.js';
import type { FailureReport } from '../format/failure.js';
import type { FleetReport } from '../fleet.js';
import type { JsonObject, JsonReport } from '../json.js';
import type { JsonBake, JsonCheck } from '../json-verify.js';

/** Where an object is written (manifests/locate.ts), relative to the checkout. */
export type LocateObject = (ref: ObjectRef) => { file: string; line: number } | undefined;

/** The failing container's last lines the report keeps, at most. */
const LOG_LINES = 20;

/** Verdicts that fail a test case: the rollout failed or timed out, someone else's change, an object gone. */
const FAILING_VERDICTS = new Set(['failed', 'timed-out', 'conflict', 'gone']);

/** Why a test case is skipped, by verdict: kguard did not judge the object (a cancelled run says its own reason). */
const SKIP_REASONS: Record<string, (cancelled: string | null) => string> = {
  progressing: (cancelled) =>
    cancelled ? `stopped watching: ${cancelled}` : 'stopped watching because another workload of this apply failed',
};

/** What a passing test case says of its object, by verdict. */
const PASS_OUTPUT: Record<string, string> = {
  unchanged: 'unchanged by this apply: nothing to watch or restore',
};

interface TestCase {
  name: string;
  classname: string;
  seconds: number;
  location?: { file: string; line: number };
  output?: string;
  failure?: { message: string; type: string; text: string };
  error?: { message: string; type: string; text: string };
  skipped?: string;
}

export function junitXml(
  report: JsonReport | FailureReport,
  finishedAt: Date,
  locate: LocateObject = () => undefined,
): string {
  const suite = suiteOf(report, 'kguard apply', [], finishedAt, locate);
  return document([suite]);
}

/**
 * A fleet: one suite per cluster, named for its context. A cluster kguard could not run on is an
 * error; one not reached is skipped; the fleet's restore of a healthy cluster is a property.
 */
export function fleetJunitXml(report: FleetReport, finishedAt: Date, locate: LocateObject = () => undefined): string {
  return document(
    report.clusters.map((cluster) => {
      const properties: Array<[string, string]> = [
        ['context', cluster.context],
        ['wave', String(cluster.wave)],
        ['clusterOutcome', cluster.outcome],
      ];
      const name = `kguard apply (context ${cluster.context})`;
      if (cluster.report) return suiteOf(cluster.report, name, properties, finishedAt, locate);
      const test: TestCase =
        cluster.outcome === 'not-reached'
          ? {
              name: `context ${cluster.context}`,
              classname: 'fleet',
              seconds: 0,
              skipped: 'not reached: its wave never started; nothing was read or changed there',
            }
          : {
              name: `context ${cluster.context}`,
              classname: 'fleet',
              seconds: 0,
              error: {
                message: cluster.message ?? cluster.outcome,
                type: cluster.outcome,
                text: cluster.message ?? '',
              },
            };
      return suiteFromCases(
        [test],
        name,
        [['outcome', cluster.outcome], ['exitCode', String(cluster.exitCode ?? '')], ...properties],
        0,
        finishedAt,
        [],
      );
    }),
  );
}

interface Suite {
  lines: string[];
  totals: { tests: number; failures: number; errors: number; skipped: number };
  totalMs: number;
}

function suiteOf(
  report: JsonReport | FailureReport,
  name: string,
  extra: Array<[string, string]>,
  finishedAt: Date,
  locate: LocateObject,
): Suite {
  const cases =
    'objects' in report
      ? [
          ...report.objects.map((object) => objectCase(object, report.cancelled, locate)),
          ...report.verify.map(checkCase),
          ...(report.bake ? [bakeCase(report.bake)] : []),
          ...(report.analysis ? analysisCases(report.analysis) : []),
        ]
      : [errorCase(report)];
  const totalMs = 'timings' in report ? report.timings.totalMs : 0;
  const properties: Array<[string, string]> = [
    ['outcome', report.outcome],
    ['exitCode', String(report.exitCode)],
    ...('rollbackMode' in report
      ? ([
          ['rollbackMode', report.rollbackMode],
          ['dryRun', String(report.dryRun)],
        ] as Array<[string, string]>)
      : []),
    ...extra,
  ];
  return suiteFromCases(cases, name, properties, totalMs, finishedAt, report.messages);
}

function suiteFromCases(
  cases: TestCase[],
  name: string,
  properties: Array<[string, string]>,
  totalMs: number,
  finishedAt: Date,
  messages: readonly string[],
): Suite {
  const count = (pick: (test: TestCase) => unknown) => cases.filter(pick).length;
  const totals = {
    tests: cases.length,
    failures: count((test) => test.failure),
    errors: count((test) => test.error),
    skipped: count((test) => test.skipped !== undefined),
  };
  const time = seconds(totalMs);
  const lines = [
    `  <testsuite name="${attribute(name)}" tests="${totals.tests}" failures="${totals.failures}" errors="${totals.errors}" skipped="${totals.skipped}"` +
      ` time="${time}" timestamp="${new Date(finishedAt.getTime() - totalMs).toISOString()}">`,
    '    <properties>',
    ...properties.map(([key, value]) => `      <property name="${attribute(key)}" value="${attribute(value)}"/>`),
    '    </properties>',
    ...cases.map(testCaseXml),
    `    <system-out>${text(messages.join('\n'))}</system-out>`,
    '  </testsuite>',
  ];
  return { lines, totals, totalMs };
}

function document(suites: readonly Suite[]): string {
  const sum = (pick: (suite: Suite) => number) => suites.reduce((total, suite) => total + pick(suite), 0);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="kguard" tests="${sum((suite) => suite.totals.tests)}" failures="${sum((suite) => suite.totals.failures)}" errors="${sum((suite) => suite.totals.errors)}" time="${seconds(sum((suite) => suite.totalMs))}">`,
    ...suites.flatMap((suite) => suite.lines),
    '</testsuites>',
    '',
  ].join('\n');
}

function objectCase(object: JsonObject, cancelled: string | null, locate: LocateObject): TestCase {
  const name = `${object.kind.toLowerCase()}/${object.name}${object.namespace ? ` (namespace ${object.namespace})` : ''}`;
  const location = locate({
    apiVersion: object.apiVersion,
    kind: object.kind,
    namespace: object.namespace ?? '',
    name: object.name,
  });
  const test: TestCase = {
    name,
    classname: `kguard.${object.kind}`,
    seconds: (object.timings.verdictAfterMs ?? 0) / 1000,
    location,
  };
  if (FAILING_VERDICTS.has(object.verdict)) {
    test.failure = {
      message: object.summary ?? object.verdict,
      type: object.reason ?? object.verdict,
      text: diagnosisText(object, location),
    };
  } else if (object.verdict in SKIP_REASONS) {
    test.skipped = SKIP_REASONS[object.verdict]!(cancelled);
  } else if (object.verdict in PASS_OUTPUT) {
    test.output = PASS_OUTPUT[object.verdict];
  }
  return test;
}

/** A check is a test of the new version: a failing one fails its case with its last lines. */
function checkCase(check: JsonCheck): TestCase {
  const what =
    check.type === 'command'
      ? `verify: ${check.command}`
      : `verify job: ${check.job ? `${check.job.namespace}/${check.job.name}` : ''} (${check.file})`;
  const test: TestCase = {
    name: check.during === 'bake' ? `${what} (during the bake)` : what,
    classname: 'kguard.verify',
    seconds: check.durationMs / 1000,
  };
  if (check.cancelled) test.skipped = check.summary;
  else if (!check.passed) {
    const lines = check.lines.length > 0 ? ['last lines:', ...check.lines.map((line) => `  | ${line}`)] : [];
    const logs = check.logs.flatMap((log) => [
      `last lines of container ${log.container} (pod ${log.pod}):`,
      ...log.lines.map((line) => `  | ${line}`),
    ]);
    test.failure = {
      message: check.summary,
      type: check.timedOut ? 'timed-out' : 'verify',
      text: [
        check.summary,
        ...lines,
        ...check.evidence.map((line) => `  ${line}`),
        ...logs,
        ...(check.nextStep ? [`next: ${check.nextStep}`] : []),
      ].join('\n'),
    };
  }
  return test;
}

function bakeCase(bake: JsonBake): TestCase {
  const test: TestCase = {
    name: `bake ${bake.durationMs / 1000}s`,
    classname: 'kguard.bake',
    seconds: bake.elapsedMs / 1000,
  };
  if (bake.passed) return test;
  // Someone else's change fails its object's case; a signal is not the new version's verdict.
  if (bake.stoppedBy === 'cancelled' || bake.stoppedBy === 'conflict') {
    test.skipped = bake.summary ?? bake.stoppedBy;
    return test;
  }
  const where = bake.workload
    ? `${bake.workload.kind.toLowerCase()}/${bake.workload.name}${bake.workload.namespace ? ` (namespace ${bake.workload.namespace})` : ''}: `
    : '';
  const logs = bake.logs.flatMap((log) => [
    `last lines of container ${log.container} (pod ${log.pod}):`,
    ...log.lines.map((line) => `  | ${line}`),
  ]);
  test.failure = {
    message: `${where}${bake.summary ?? 'it did not stay healthy'}`,
    type: bake.stoppedBy ?? 'bake',
    text: [
      `${where}${bake.summary ?? ''}`,
      ...bake.evidence,
      ...logs,
      ...(bake.nextStep ? [`next: ${bake.nextStep}`] : []),
    ].join('\n'),
  };
  return test;
}

function errorCase(report: FailureReport): TestCase {
  return {
    name: 'kguard apply',
    classname: 'kguard',
    seconds: 0,
    error: { message: report.error, type: report.outcome, text: `${report.error}\n(exit ${report.exitCode})` },
  };
}

/**
 * What a person needs in the CI's test view, standing alone: the diagnosis, where the object is
 * written, the evidence, the failing container's last lines, the next step and what the restore did.
 */
function diagnosisText(object: JsonObject, location: TestCase['location']): string {
  const restore = object.restore;
  const logs = object.logs.flatMap((log) => {
    const lines = log.lines.slice(-LOG_LINES);
    if (lines.length === 0)
      return log.error ? [`no last lines of container ${log.container} (pod ${log.pod}): ${log.error}`] : [];
    return [
      `last lines of container ${log.container} (pod ${log.pod}${log.previous ? ', run before the restart' : ''}):`,
      ...lines.map((line) => `  | ${line}`),
    ];
  });
  return [
    object.summary ?? `ended ${object.verdict}`,
    ...(location ? [`manifest: ${location.file} line ${location.line}`] : []),
    ...object.evidence.map((line) => `  ${line}`),
    ...logs,
    ...(object.nextStep ? [`next: ${object.nextStep}`] : []),
    ...(object.changedFields.length > 0 ? [`changed by the apply: ${object.changedFields.join(', ')}`] : []),
    ...(restore
      ? [
          `restore: ${restore.status}${restore.reason ? ` (${restore.reason})` : ''}`,
          ...restore.commands.map((command) => `  ${command}`),
        ]
      : ['restore: none']),
  ].join('\n');
}

function testCaseXml(test: TestCase): string {
  const where = test.location ? ` file="${attribute(test.location.file)}" line="${test.location.line}"` : '';
  const open = `    <testcase name="${attribute(test.name)}" classname="${attribute(test.classname)}" time="${seconds(test.seconds * 1000)}"${where}`;
  const children = [
    ...(test.skipped !== undefined ? [`      <skipped>${text(test.skipped)}</skipped>`] : []),
    ...(test.error
      ? [
          `      <error message="${attribute(test.error.message)}" type="${attribute(test.error.type)}">${text(test.error.text)}</error>`,
        ]
      : []),
    ...(test.failure
      ? [
          `      <failure message="${attribute(test.failure.message)}" type="${attribute(test.failure.type)}">${text(test.failure.text)}</failure>`,
        ]
      : []),
    ...(test.output !== undefined ? [`      <system-out>${text(test.output)}</system-out>`] : []),
  ];
  return children.length === 0 ? `${open}/>` : [`${open}>`, ...children, '    </testcase>'].join('\n');
}

function seconds(ms: number): string {
  return (ms / 1000).toFixed(3);
}

/** Characters XML 1.0 cannot hold at all (the sanitiser removes them already; this is the format's own rule). */
// eslint-disable-next-line no-control-regex
const NOT_XML = /[^\u0009\u000A\u000D\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

function text(value: string): string {
  return value.replace(NOT_XML, '').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function attribute(value: string): string {
  return text(value).replace(/"/g, '&quot;').replace(/\n/g, '&#10;').replace(/\t/g, '&#9;').replace(/\r/g, '&#13;');
}
