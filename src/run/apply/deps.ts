// What a guarded apply needs from outside: kubectl, a clock, a reporter, a cancel signal, the
// input readers and where a restore keeps copies a person may need.
import type { PrometheusClient } from '../../analysis/prometheus.js';
import type { Clock } from '../../clock.js';
import type { CommandExec } from '../../kubectl/process/exec.js';
import type { Kubectl } from '../../kubectl/types.js';
import type { HolderProbe } from '../../journal/holder.js';
import type { InputDeps } from '../../manifests/inputs.js';
import type { RestoreDeps } from '../../restore/context.js';
import type { Registries, RegistryOptions } from '../../images/registry.js';
import type { Reporter } from '../../model/events.js';
import type { RunResult } from '../../model/result.js';

export interface Deps {
  kubectl: Kubectl;
  clock: Clock;
  reporter: Reporter;
  /** Aborted by SIGINT/SIGTERM: before the apply nothing is changed; after it, everything it changed is restored. */
  signal?: AbortSignal;
  inputs: InputDeps;
  keepCopy: RestoreDeps['keepCopy'];
  /** Whether a run's process still runs on this machine (journal/holder.ts probeHolder by default). */
  probe?: HolderProbe;
  /** How registries are asked before the apply (images/registry.ts); tests pass their own. */
  registries?: (options: RegistryOptions) => Registries;
  /**
   * How --analysis asks Prometheus: the run's one client (runApply makes it, analysis/prometheus.ts
   * runPrometheusClient, and closes it); tests pass their own.
   */
  prometheus?: PrometheusClient;
  /** The wall clock the analysis reads for Prometheus's times (Date.now by default). */
  wallNow?: () => number;
  /** The run's id, when the caller made it (its copies' directory is named after it); else made here. */
  runId?: string;
  /**
   * Called once the result is known, before the journal and the leases are let go: the verdict
   * line does not wait for kguard's own cleanup.
   */
  announce?(result: RunResult): void;
  /**
   * What --verify commands need: the process runner (kubectl/process/exec.ts execCommand), what their
   * environment adds besides the run's own facts (KUBECONFIG), and the report so far as JSON text.
   */
  verify?: { runCommand: CommandExec; env: Readonly<Record<string, string>>; report(result: RunResult): string };
}

/** What cancelled the run, as the signal's abort says it: "interrupted by SIGINT", "stopped by kguard rollback (…)". */
export function cancelReason(signal: AbortSignal): string {
  return typeof signal.reason === 'string' ? signal.reason : 'cancelled';
}

/** The run's Prometheus client: runApply gives one to every run with --analysis. */
export function runPrometheus(deps: Pick<Deps, 'prometheus'>): PrometheusClient {
  if (!deps.prometheus) throw new Error('kguard made no Prometheus client for this run, which has --analysis');
  return deps.prometheus;
}
