// After the rollout: the checks (--verify commands, then --verify-job Jobs), then the bake
// (--bake, the checks again every --verify-interval). They run only when every changed workload
// is healthy; the first failure stops them, and the apply is then restored as a unit.
//
// A command learns the run from its environment:
//   KGUARD_RUN_ID     the run's id (its journal, its leases, its verify Jobs' kguard.dev/run label)
//   KGUARD_CONTEXT    the kubeconfig context every kubectl call of the run went to
//   KGUARD_NAMESPACE  the apply's namespace (that of its first namespaced object, or -n)
//   KGUARD_REPORT     a JSON report of the run so far (the shape of --output json), readable only by the user
//   KGUARD_PHASE      "verify" after the rollout, "bake" when run again during the bake
//   KUBECONFIG        the --kubeconfig given to kguard, when one was
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Target } from '../../model/result.js';
import type { RunResult } from '../../model/result.js';
import type { ApplyOptions } from '../../model/options.js';
import type { Verification, VerifyOutcome, CheckedDuring } from '../../model/verify.js';
import { isChange } from '../../objects/compare.js';
import { objectKey } from '../../objects/model.js';
import { trackTargetOf } from '../../track/workloads.js';
import { mergeHealthRules } from '../../kinds/health/health-rules.js';
import { BUILT_IN_HEALTH_RULES } from '../../kinds/health/health-table.js';
import type { HealthRule } from '../../model/health-rules.js';
import { bake, type BakeTarget } from '../../verify/bake.js';
import { analysisSpanMs, startAnalysis, type RunningAnalysis } from '../../analysis/run.js';
import { analysisWorkloads } from '../../analysis/workloads.js';
import type { AnalysisFacts } from '../../model/analysis.js';
import { runVerifyCommand } from '../../verify/command.js';
import { runVerifyJob } from '../../verify/job.js';
import type { PreparedJob } from '../../verify/job-manifest.js';
import { beforeOf, type PendingObject } from './changes.js';
import { runPrometheus, type Deps } from './deps.js';

export interface VerifyContext {
  runId: string;
  /** The apply's namespace (journal-life.ts homeNamespace). */
  namespace: string;
  target?: Target;
  /** The --verify-job files, read and checked before the apply. */
  jobs: readonly PreparedJob[];
  /** The run as it stands, for KGUARD_REPORT. */
  resultSoFar(verification: Verification): RunResult;
  /**
   * When the write the analysis judges was made (epoch ms: the main phase's apply, or the one
   * apply), for --analysis's `previous` rule and {{ appliedAt }}; else told from the verdicts' times.
   */
  appliedAt?: number;
  /** The workloads the apply holds (analysis/workloads.ts): {{ workloads }} when it changed none. */
  heldWorkloads?: readonly string[];
}

/** What the analysis needs besides the run's deps: tests give their own Prometheus and wall clock. */
export type VerifyDeps = Deps;

/** Whether anything is to be verified or baked. */
export function verifies(options: ApplyOptions): boolean {
  return options.verifyCommands.length > 0 || options.verifyJobs.length > 0 || options.bakeMs > 0 || !!options.analysis;
}

export async function verifyAndBake(
  objects: PendingObject[],
  context: VerifyContext,
  options: ApplyOptions,
  deps: VerifyDeps,
): Promise<Verification | undefined> {
  if (!verifies(options) || deps.signal?.aborted) return undefined;
  const wallNow = deps.wallNow ?? Date.now;
  // The verdicts' times say when the apply ended, when the apply's moment is not given.
  const appliedAt =
    context.appliedAt ?? wallNow() - Math.max(0, ...objects.map((object) => object.verdictAfterMs ?? 0));
  if (!objects.some(isChange)) {
    deps.reporter.emit({
      kind: 'verify-skipped',
      reason: 'the apply changed nothing, so there is nothing a check could send back',
    });
    return undefined;
  }
  // A rollout that failed, timed out or met someone else's change has its verdict already.
  if (
    objects.some(
      (object) =>
        object.verdict !== undefined && object.verdict.state !== 'healthy' && object.verdict.state !== 'applied',
    )
  )
    return undefined;
  const verification: Verification = { checks: [] };
  const reportFile = options.verifyCommands.length > 0 ? privateReportFile() : undefined;
  try {
    const commands = async (during: CheckedDuring): Promise<VerifyOutcome | undefined> => {
      const report =
        reportFile && deps.verify
          ? await reportFile.write(deps.verify.report(context.resultSoFar(verification)))
          : undefined;
      const env = environment(context, during, report, deps);
      for (const command of options.verifyCommands) {
        if (deps.signal?.aborted) return undefined;
        const outcome = await runVerifyCommand(
          command,
          { during, timeoutMs: options.verifyTimeoutMs, env, logLines: options.logLines },
          commandDeps(deps),
        );
        verification.checks.push(outcome);
        if (!outcome.passed) return outcome;
      }
      return undefined;
    };
    if (await commands('verify')) return verification;
    for (const job of context.jobs) {
      if (deps.signal?.aborted) return verification;
      const outcome = await runVerifyJob(
        job,
        {
          timeoutMs: options.verifyTimeoutMs,
          pollIntervalMs: options.pollIntervalMs,
          watch: !options.poll,
          logLines: options.logLines,
          keep: options.keepVerify,
          writeDeadlineMs: Math.min(60_000, options.rollbackTimeoutMs),
        },
        deps,
      );
      verification.checks.push(outcome);
      if (!outcome.passed) return verification;
    }
    if (deps.signal?.aborted) return verification;
    const analysis = options.analysis ? analysisStarter(objects, context, appliedAt, options, deps) : undefined;
    if (options.bakeMs > 0) {
      // The bake lasts until the analysis's last evaluation too.
      const durationMs = Math.max(options.bakeMs, options.analysis ? analysisSpanMs(options.analysis) : 0);
      const running = analysis?.start(durationMs, false);
      const { outcome, verdicts } = await bake(
        bakeTargets(objects, mergeHealthRules(BUILT_IN_HEALTH_RULES, options.healthRules)),
        {
          durationMs,
          pollIntervalMs: options.pollIntervalMs,
          watch: !options.poll,
          logLines: options.logLines,
          verifyIntervalMs: options.verifyIntervalMs,
        },
        deps,
        () => commands('bake'),
        running,
      );
      verification.bake = outcome;
      if (running) verification.analysis = await running.ended;
      for (const object of objects) object.verdict = verdicts.get(objectKey(object.ref)) ?? object.verdict;
    } else if (analysis) {
      // No bake: each metric once, now.
      verification.analysis = await analysis.start(0, true).ended;
    }
    return verification;
  } finally {
    await reportFile?.remove();
  }
}

/** The analysis of this run: its facts (namespace, workloads, the apply's moment), through the run's Prometheus client. */
function analysisStarter(
  objects: readonly PendingObject[],
  context: VerifyContext,
  appliedAt: number,
  options: ApplyOptions,
  deps: VerifyDeps,
): { start(durationMs: number, once: boolean): RunningAnalysis } {
  const config = options.analysis!;
  const changed = objects.filter((object) => object.tracked && isChange(object)).map((object) => object.ref.name);
  const facts: AnalysisFacts = {
    runId: context.runId,
    namespace: context.namespace,
    workloads: analysisWorkloads(changed, context.heldWorkloads ?? []),
    appliedAt,
  };
  const prometheus = runPrometheus(deps);
  return {
    start: (durationMs, once) =>
      startAnalysis(config, facts, { durationMs, once }, { ...deps, prometheus, wallNow: deps.wallNow ?? Date.now }),
  };
}

/** Every watched workload that rolled out healthy, from its pods at that verdict. */
function bakeTargets(objects: readonly PendingObject[], healthRules: readonly HealthRule[]): BakeTarget[] {
  return objects.flatMap((object): BakeTarget[] => {
    if (!object.tracked || object.verdict?.state !== 'healthy' || !('after' in object.change)) return [];
    return [
      {
        ...trackTargetOf(
          { ref: object.ref, applied: object.change.after, before: beforeOf(object.change) },
          healthRules,
        ),
        baseline: object.newPods ?? [],
      },
    ];
  });
}

function commandDeps(deps: Deps) {
  if (!deps.verify) throw new Error('kguard was built without a command runner for --verify');
  return { runCommand: deps.verify.runCommand, clock: deps.clock, reporter: deps.reporter, signal: deps.signal };
}

function environment(
  context: VerifyContext,
  during: CheckedDuring,
  report: string | undefined,
  deps: Deps,
): Record<string, string> {
  return {
    ...(deps.verify?.env ?? {}),
    KGUARD_RUN_ID: context.runId,
    KGUARD_NAMESPACE: context.namespace,
    KGUARD_PHASE: during,
    ...(context.target ? { KGUARD_CONTEXT: context.target.context } : {}),
    ...(report ? { KGUARD_REPORT: report } : {}),
  };
}

/** The report so far, in a directory only this user can enter (0700), rewritten before each run of the commands. */
function privateReportFile(): { write(json: string): Promise<string>; remove(): Promise<void> } {
  let directory: Promise<string> | undefined;
  return {
    async write(json) {
      directory ??= mkdtemp(path.join(tmpdir(), 'kguard-verify-'));
      const file = path.join(await directory, 'report.json');
      await writeFile(file, `${json}\n`, { mode: 0o600 });
      return file;
    },
    async remove() {
      if (directory) await rm(await directory, { recursive: true, force: true });
    },
  };
}
