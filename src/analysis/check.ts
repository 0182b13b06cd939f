// Before the apply: every query is sent once to Prometheus's own /api/v1/query, its variables
// filled with stand-ins (the names do not change whether PromQL parses). A query Prometheus
// refuses (errorType bad_data: it does not parse) refuses the run, as does a Prometheus that does
// not answer (the analysis could judge nothing): exit 1, nothing changed. So is a query that names
// {{ workloads }} when the apply holds no workload for it to name (workloads.ts): it would match
// nothing, or every series without the label, never the release.
import { InputError } from '../errors.js';
import type { AnalysisConfig } from '../model/analysis.js';
import type { PrometheusClient } from './prometheus.js';
import { renderQuery } from './template.js';
import { namelessWorkloadQueries } from './workloads.js';

export async function checkQueries(
  config: AnalysisConfig,
  prometheus: PrometheusClient,
  {
    namespace,
    now,
    signal,
    heldWorkloads,
  }: {
    namespace: string;
    now: number;
    signal?: AbortSignal;
    /** The workloads the apply holds (workloads.ts heldWorkloads); undefined while some of it is not read yet. */
    heldWorkloads?: readonly string[];
  },
): Promise<void> {
  const [nameless] = heldWorkloads ? namelessWorkloadQueries(config.metrics, heldWorkloads) : [];
  if (nameless)
    throw new InputError(
      `--analysis ${config.source}: metric ${nameless.name}: its query names {{ workloads }} (or {{ workload }}), but the apply holds no workload for it to name (no Deployment, StatefulSet, DaemonSet, ReplicaSet, Job, CronJob, Pod or custom resource). Nothing was applied; name what the query judges in it, or apply the workloads with their configuration.`,
    );
  const facts = { runId: 'check', namespace, workloads: ['check'], appliedAt: now - 60_000 };
  const answers = await Promise.all(
    config.metrics.map(async (check) => {
      const query = renderQuery(check.query, facts, check.intervalMs, now);
      return { check, query, answer: await prometheus.query(query, now, signal) };
    }),
  );
  for (const { check, query, answer } of answers) {
    if (answer.ok) continue;
    if (answer.badQuery)
      throw new InputError(
        `--analysis ${config.source}: metric ${check.name}: Prometheus refuses its query \`${query}\` (${answer.message}). Nothing was applied; fix the PromQL and run kguard again.`,
      );
    throw new InputError(
      `--analysis ${config.source}: metric ${check.name}: its query could not be checked before the apply (${answer.message}). Nothing was applied; check prometheus.address (and that Prometheus runs), then run kguard again.`,
    );
  }
}
