// The machine-readable report of --output json: built from the run's result, printed once on stdout.
import { isChange } from '../objects/compare.js';
import type { Finding } from '../model/findings.js';
import { exitCodeOfRun } from '../run/apply/result.js';
import type { Outcome } from '../model/result.js';
import type { ObjectResult, RunResult } from '../model/result.js';
import { bakeReport, checksReport, logReport, type JsonBake, type JsonCheck } from './json-verify.js';
import { analysisReport, type JsonAnalysis } from './json-analysis.js';

/**
 * Bumped whenever the shape below changes. 2: one entry per object of the apply, restore instead
 * of undo. 3: `verify` (the checks) and `bake`.
 */
export const REPORT_VERSION = 3;

export interface JsonReport {
  reportVersion: number;
  /** The run's id, when it wrote a journal. */
  runId?: string;
  /** --run-label. */
  runLabel?: string;
  outcome: Outcome;
  exitCode: number;
  dryRun: boolean;
  /** kubectl apply's own lines (created/configured/unchanged). */
  applied: Array<{ resource: string; name: string; action: string }>;
  applyError: string | null;
  /** "interrupted by SIGTERM" when a signal cancelled the run after the apply. */
  cancelled: string | null;
  objects: JsonObject[];
  rollbackMode: RunResult['rollbackMode'];
  /** Every check run (--verify, --verify-job), in order, those repeated during the bake included; empty when none ran. */
  verify: JsonCheck[];
  /** The bake (--bake); null when none ran. */
  bake: JsonBake | null;
  /** The metric analysis (--analysis); null when none ran. */
  analysis: JsonAnalysis | null;
  timings: { applyMs: number; totalMs: number };
  kubectlProcesses: number;
  /** Dead runs whose journals held objects of this apply, finished (restored from their journals) before its apply; empty when none. */
  recoveredRuns: Array<{ runId: string; restored: number; untouched: number }>;
  /** Where every kubectl call went: the kubeconfig's context, cluster, user and namespace, resolved once (null without a kubeconfig context). */
  target: { context: string; cluster: string; user: string; namespace: string } | null;
  /** Each image the apply changes, as its registry answered before the apply (--image-check); empty when none was asked. */
  images: Array<{
    apiVersion: string;
    kind: string;
    namespace: string | null;
    name: string;
    container: string;
    image: string;
    verdict: 'exists' | 'missing' | 'unknown';
    detail: string;
  }>;
  /** Every line kguard logged, in order, without symbols or colour. */
  messages: string[];
}

export interface JsonObject {
  apiVersion: string;
  kind: string;
  namespace: string | null;
  name: string;
  /** What the apply did (or, with --dry-run, would do). */
  change: ObjectResult['changeKind'];
  changedFields: string[];
  /** The phase that applied it, in an apply made in phases (CRDs, pre, main, post); absent otherwise. */
  phase?: ObjectResult['phase'];
  tracked: boolean;
  verdict: string;
  reason: string | null;
  category: string | null;
  summary: string | null;
  nextStep: string | null;
  evidence: string[];
  pods: Array<{ pod: string; container: string | null; reason: string; message: string; restartCount: number }>;
  /** What was seen and is no reason to wait: a new pod its node ended (its replacement counts), an autoscaler's replicas. */
  notes: string[];
  /** The failing containers' last lines (up to 50 each), read before any restore removed the pods. */
  logs: Array<{ pod: string; container: string; previous: boolean; lines: string[]; error: string | null }>;
  restore: {
    status: string;
    reason: string | null;
    commands: string[];
    copyFile: string | null;
    differences: string[];
    /** What a kind's restore step did besides the write (a StatefulSet's stuck pods deleted). */
    notes: string[];
    healthyAfterRestore: boolean | null;
    /** Restored but not healthy, as it was not before the apply either: why its pre-apply copy was not (kinds/before.ts). */
    failingBefore: string | null;
  } | null;
  timings: { verdictAfterMs: number | null; restoreHealthyAfterMs: number | null };
}

export function buildReport(
  result: RunResult,
  messages: readonly string[],
  run: { runId?: string; runLabel?: string } = {},
): JsonReport {
  return {
    reportVersion: REPORT_VERSION,
    ...(run.runId ? { runId: run.runId } : {}),
    ...(run.runLabel ? { runLabel: run.runLabel } : {}),
    outcome: result.outcome,
    exitCode: exitCodeOfRun(result),
    dryRun: result.mode === 'preview',
    applied: result.applied.map(({ resource, name, action }) => ({ resource, name, action })),
    applyError: result.applyError ?? null,
    cancelled: result.cancelled ?? null,
    objects: result.objects.map(objectReport),
    rollbackMode: result.rollbackMode,
    verify: checksReport(result.verification),
    bake: bakeReport(result.verification),
    analysis: analysisReport(result.verification),
    timings: { applyMs: Math.round(result.applyMs), totalMs: Math.round(result.totalMs) },
    kubectlProcesses: result.kubectlProcesses,
    recoveredRuns: (result.recoveredRuns ?? []).map(({ runId, restored, untouched }) => ({
      runId,
      restored,
      untouched,
    })),
    target: result.target ? { ...result.target } : null,
    images: (result.images ?? []).map(({ object, container, image, verdict, detail }) => ({
      apiVersion: object.apiVersion,
      kind: object.kind,
      namespace: object.namespace || null,
      name: object.name,
      container,
      image,
      verdict,
      detail,
    })),
    messages: [...messages],
  };
}

function objectReport(result: ObjectResult): JsonObject {
  const { ref, verdict, diagnosis, restore } = result;
  const cause = verdict?.state === 'failed' ? verdict.cause : undefined;
  const unchanged = !isChange(result);
  return {
    apiVersion: ref.apiVersion,
    kind: ref.kind,
    namespace: ref.namespace || null,
    name: ref.name,
    change: result.changeKind,
    changedFields: result.changedFields,
    ...(result.phase ? { phase: result.phase } : {}),
    tracked: result.tracked ?? false,
    verdict: verdict?.state ?? (unchanged ? 'unchanged' : 'applied'),
    reason: cause
      ? cause.source === 'pod'
        ? cause.finding.reason
        : cause.source === 'condition'
          ? cause.reason
          : null
      : null,
    category: cause
      ? cause.source === 'pod'
        ? cause.finding.rule.category
        : cause.source === 'condition'
          ? cause.rule.category
          : null
      : null,
    summary:
      diagnosis?.summary ??
      (verdict && 'detail' in verdict ? verdict.detail : undefined) ??
      (cause?.source === 'apply' || cause?.source === 'internal' ? cause.message : null),
    nextStep: diagnosis?.nextStep ?? null,
    evidence: diagnosis?.evidence ?? [],
    pods: (verdict && 'findings' in verdict ? verdict.findings : []).map(podReport),
    notes: (verdict && 'notes' in verdict ? verdict.notes : undefined) ?? [],
    logs: (diagnosis?.logs ?? []).map(logReport),
    restore: restore
      ? {
          status: restore.status,
          reason: restore.status === 'kept' ? restore.reason : restore.status === 'failed' ? restore.reason : null,
          commands: 'commands' in restore ? restore.commands : [],
          copyFile: 'copyFile' in restore ? (restore.copyFile ?? null) : null,
          differences: 'differences' in restore ? restore.differences : [],
          notes: 'notes' in restore ? (restore.notes ?? []) : [],
          healthyAfterRestore: result.afterRestore ? result.afterRestore.state === 'healthy' : null,
          failingBefore: result.afterRestore?.failingBefore ?? null,
        }
      : null,
    timings: {
      verdictAfterMs: result.verdictAfterMs === undefined ? null : Math.round(result.verdictAfterMs),
      restoreHealthyAfterMs: result.afterRestore ? Math.round(result.afterRestore.elapsedMs) : null,
    },
  };
}

function podReport(finding: Finding): JsonObject['pods'][number] {
  return {
    pod: finding.pod,
    container: finding.container ?? null,
    reason: finding.reason,
    message: finding.message,
    restartCount: finding.restartCount,
  };
}
