// The checks before the first write, as rows: each starts as soon as the apply is read and is
// awaited at the gate it must pass before (the leases, or the journal's start), so they run beside
// each other and beside the guard's reads. A check that fails refuses the run: nothing is applied.
// The next check is a row here, as kinds and reasons are rows of their tables.
import { checkImagesStep } from '../../../images/check.js';
import type { ImageVerdict } from '../../../model/result.js';
import type { ApplyOptions } from '../../../model/options.js';
import { prepareVerifyJobs, type PreparedJob } from '../../../verify/job-manifest.js';
import { runPrometheus, type Deps } from '../deps.js';
import { checkRestorable } from '../understand.js';
import { checkPermissions } from './permissions.js';
import type { Reading } from './reading.js';

/** Where a check must have passed: before the run takes its leases, or before its journal starts. */
export type Gate = 'leases' | 'journal';

interface CheckRow<T> {
  /** Whether this run asks it (a changing apply that is not a preview, with what the row needs). */
  asked(reading: Reading, options: ApplyOptions): boolean;
  start(reading: Reading, options: ApplyOptions, deps: Deps): Promise<T>;
  due: Gate;
}

const CHECKS = {
  // The --verify-job files, read and checked: a Job the API server refuses is refused before the apply.
  verifyJobs: {
    asked: (_reading, options) => options.verifyJobs.length > 0 && !options.dryRun,
    start: ({ home, runId, place }, options, deps) =>
      prepareVerifyJobs(
        options.verifyJobs,
        { namespace: home, runId, createdNamespaces: place.placement.created, deadlineMs: options.timeoutMs },
        deps.kubectl,
      ),
    due: 'leases',
  } satisfies CheckRow<PreparedJob[]>,
  // Does every image the apply changes exist? A missing one refuses the run (images/check.ts).
  images: {
    asked: ({ understood }, options) => options.imageCheck !== 'off' && !options.dryRun && understood.server.ok,
    start: ({ understood }, options, deps) =>
      checkImagesStep(understood.server.ok ? understood.server.objects : [], understood.current, options, deps),
    due: 'leases',
  } satisfies CheckRow<ImageVerdict[]>,
  // What a restore needs to know of each kind (nothing is applied that kguard could not restore),
  // then whether this user may do what a restore would. With nothing to restore, neither is asked.
  restorable: {
    asked: ({ unchanged }, options) => options.rollback !== 'none' && !options.dryRun && !unchanged,
    start: ({ refs, understood }, options, deps) =>
      checkRestorable(refs, deps).then(() => checkPermissions(understood, options, deps)),
    due: 'journal',
  } satisfies CheckRow<void>,
  // Every --analysis query, sent once to Prometheus's own /api/v1/query through the run's one client:
  // one it refuses (bad PromQL), a Prometheus that does not answer, or a query naming {{ workloads }}
  // when the apply holds none, refuses the run (analysis/check.ts).
  analysisQueries: {
    asked: (_reading, options) => options.analysis !== undefined && !options.dryRun,
    start: async ({ home, refs, understood, plan }, options, deps) => {
      const [{ checkQueries }, { heldWorkloads }] = await Promise.all([
        import('../../../analysis/check.js'),
        import('../../../analysis/workloads.js'),
      ]);
      // A part not read yet holds custom resources (kinds this apply's CRDs define): workloads, then.
      const read = plan.parts.every((part) => part.understood);
      await checkQueries(options.analysis!, runPrometheus(deps), {
        namespace: home,
        now: Date.now(),
        signal: deps.signal,
        heldWorkloads: read ? heldWorkloads(refs, understood.pruned) : undefined,
      });
    },
    due: 'leases',
  } satisfies CheckRow<void>,
};

type CheckName = keyof typeof CHECKS;
export type CheckValues = {
  [Name in CheckName]?: Awaited<ReturnType<(typeof CHECKS)[Name]['start']>>;
};

export interface StartedChecks {
  /** Waits for every check due at the gate, in the table's order: the first that fails is the run's refusal. */
  passed(gate: Gate): Promise<CheckValues>;
}

export function startChecks(reading: Reading, options: ApplyOptions, deps: Deps): StartedChecks {
  const started = (Object.keys(CHECKS) as CheckName[])
    .filter((name) => CHECKS[name].asked(reading, options))
    .map((name) => {
      const done: Promise<unknown> = CHECKS[name].start(reading, options, deps);
      // Awaited at its gate; until then its failure is not unhandled.
      done.catch(() => undefined);
      return { name, due: CHECKS[name].due, done };
    });
  const values: Record<string, unknown> = {};
  return {
    async passed(gate) {
      for (const check of started.filter((check) => check.due === gate)) values[check.name] = await check.done;
      return values as CheckValues;
    },
  };
}
