// `kguard status --contexts a,b,c` and `kguard rollback FLEET --contexts a,b,c`: a fleet run
// across its clusters, from the journals its runs left in each (each names the fleet run). The
// rollback restores, in every context, the fleet's run there, with the restore `kguard rollback`
// uses (someone else's change wins); a context without the fleet's journal is left alone.
import { ExitCode, InputError, KguardError } from '../../errors.js';
import { DEFAULTS } from '../../model/options.js';
import type { Reporter } from '../../model/events.js';
import { secretValuesOfObjects } from '../../report/safety/redact.js';
import { sanitizeText } from '../../report/safety/sanitize.js';
import { commandConnection } from '../connection.js';
import { parseOutputMode } from '../options.js';
import type { CommandContext } from '../session.js';
import type { ContextRuns, FleetRestoreEnd } from '../../run/fleet/fleet-runs.js';
import { lastWordWriter, rollbackDeadlineMs, type RunCommandOptions } from './run-command.js';

/** The options of status and rollback that a fleet's commands read. */
export interface FleetRunCommandOptions extends RunCommandOptions {
  /** status and rollback: a fleet's contexts (comma-separated). */
  contexts?: string;
  force?: boolean;
}

export async function fleetRunCommand(
  command: 'status' | 'rollback',
  fleetRunId: string | undefined,
  raw: FleetRunCommandOptions,
  context: CommandContext,
): Promise<number> {
  const { session } = context;
  const opened: Array<{ close(): void }> = [];
  try {
    session.json = parseOutputMode(raw.output ?? 'text') === 'json';
    const contexts = fleetContexts(command, fleetRunId, raw);
    const deadlineMs = rollbackDeadlineMs(raw);
    const parts = await loadParts();
    const kubectlFor = contextKubectls(commandConnection(raw, session), session, parts, opened);
    const say = (error: unknown) =>
      sanitizeText(error instanceof Error ? error.message : String(error), session.redactor);
    const write = lastWordWriter(session);

    const listings = await Promise.all(
      contexts.map(async (name): Promise<ContextRuns> => {
        try {
          return {
            context: name,
            runs: await parts.runs.listRuns(kubectlFor(name), raw.namespace, Date.now(), parts.probeHolder),
          };
        } catch (error) {
          if (!(error instanceof KguardError)) throw error;
          return { context: name, error: say(error) };
        }
      }),
    );

    if (command === 'status') {
      session.finished = true;
      write(parts.fleetRuns.fleetStatusLines(listings, new Date()).join('\n'), { contexts: statusReport(listings) });
      return listings.some((listing) => 'error' in listing) ? ExitCode.ClusterError : ExitCode.Success;
    }

    const fleet = fleetRunId as string;
    if (
      listings.every((listing) => 'runs' in listing && parts.fleetRuns.runsOfFleet(listing.runs, fleet).length === 0)
    ) {
      throw new InputError(
        `no journal of fleet run ${fleet} in contexts ${contexts.join(', ')} (kguard status --contexts lists the fleet runs): it may have finished, or expired.`,
      );
    }
    const terminal: Reporter = await context.makeReporter(session);
    const shared: Reporter = { emit: (event) => terminal.emit(event), close: () => undefined };
    const sections = new parts.ClusterSections(shared, contexts);
    const restore = { parts, session, raw, deadlineMs, kubectlFor, say };
    const ends = await Promise.all(
      listings.map(async (listing): Promise<FleetRestoreEnd> => {
        try {
          return await restoreContext(listing, fleet, sections.reporterFor(listing.context), restore);
        } finally {
          sections.end(listing.context);
        }
      }),
    );
    session.finished = true;
    terminal.close();
    const exitCode = parts.fleetRuns.fleetRestoreExitCode(ends);
    write(parts.fleetRuns.fleetRestoreLines(fleet, ends).join('\n'), { fleetRunId: fleet, exitCode, clusters: ends });
    return exitCode;
  } catch (error) {
    session.recorder?.close();
    return context.fail(session, error);
  } finally {
    for (const kubectl of opened) kubectl.close();
  }
}

/** The fleet's contexts from --contexts, checked with the rest of the command line. */
function fleetContexts(
  command: 'status' | 'rollback',
  fleetRunId: string | undefined,
  raw: FleetRunCommandOptions,
): string[] {
  if (raw.context !== undefined)
    throw new InputError("--context and --contexts contradict each other: give the fleet's contexts with --contexts.");
  const contexts = [
    ...new Set(
      (raw.contexts ?? '')
        .split(',')
        .map((name) => name.trim())
        .filter(Boolean),
    ),
  ];
  if (contexts.length === 0)
    throw new InputError('--contexts names no context; give them comma-separated, e.g. --contexts staging,eu-1,us-1.');
  if (command === 'rollback' && fleetRunId === undefined)
    throw new InputError(
      'kguard rollback --contexts restores one fleet run: name it (kguard status --contexts lists them), e.g. kguard rollback fleet-… --contexts staging,eu-1.',
    );
  return contexts;
}

/** What the fleet's commands use, loaded when one runs. */
async function loadParts() {
  const [
    { RunRecorder },
    { connectKubectl },
    { RETRY_DELAYS_MS },
    { systemClock },
    { probeHolder },
    runs,
    fleetRuns,
    { runRollback },
    { privateCopies, removeCopiesOf },
    { ClusterSections },
  ] = await Promise.all([
    import('../../report/recorder.js'),
    import('../../kubectl/connect.js'),
    import('../../kubectl/transient.js'),
    import('../../clock.js'),
    import('../../journal/holder.js'),
    import('../../journal/runs.js'),
    import('../../run/fleet/fleet-runs.js'),
    import('../../run/rollback/rollback.js'),
    import('../../restore/private-copies.js'),
    import('../../report/format/sections.js'),
  ]);
  return {
    RunRecorder,
    connectKubectl,
    RETRY_DELAYS_MS,
    systemClock,
    probeHolder,
    runs,
    fleetRuns,
    runRollback,
    privateCopies,
    removeCopiesOf,
    ClusterSections,
  };
}

type Parts = Awaited<ReturnType<typeof loadParts>>;
type ContextKubectl = ReturnType<Parts['connectKubectl']>;

/** One kubectl per context (its raw calls through one proxy), every call with a deadline; each one opened is closed by the caller. */
function contextKubectls(
  connectionArgs: readonly string[],
  session: CommandContext['session'],
  { connectKubectl, RETRY_DELAYS_MS, systemClock }: Parts,
  opened: Array<{ close(): void }>,
): (name: string) => ContextKubectl {
  const kubectls = new Map<string, ContextKubectl>();
  return (name) => {
    const known = kubectls.get(name);
    if (known) return known;
    const kubectl = connectKubectl(
      {
        binary: process.env.KGUARD_KUBECTL || 'kubectl',
        connectionArgs: [...connectionArgs, `--context=${name}`],
        requestTimeout: `${DEFAULTS.requestTimeoutMs / 1000}s`,
        readDeadlineMs: 60_000,
        retry: { delaysMs: RETRY_DELAYS_MS, sleep: systemClock.sleep },
        observe: (objects) => {
          for (const value of secretValuesOfObjects(objects)) session.redactor.addValue(value);
        },
      },
      { watches: false },
    );
    kubectls.set(name, kubectl);
    opened.push(kubectl);
    return kubectl;
  };
}

/** `kguard status --contexts … -o json`: each context's runs, or why they could not be read. */
function statusReport(listings: readonly ContextRuns[]) {
  return listings.map((listing) =>
    'runs' in listing
      ? {
          context: listing.context,
          error: null,
          runs: listing.runs.map((run) => ({
            runId: run.runId,
            fleetRunId: run.journal?.fleet?.runId ?? null,
            state: run.journal?.state ?? null,
            liveness: run.liveness.state,
            why: run.liveness.why,
            objects: run.journal?.objects.map(({ ref }) => ref) ?? [],
          })),
        }
      : { context: listing.context, error: listing.error, runs: [] },
  );
}

/** The fleet run's run in one context, restored as `kguard rollback` restores it; or why it was not. */
async function restoreContext(
  listing: ContextRuns,
  fleet: string,
  reporter: Reporter,
  {
    parts,
    session,
    raw,
    deadlineMs,
    kubectlFor,
    say,
  }: {
    parts: Parts;
    session: CommandContext['session'];
    raw: FleetRunCommandOptions;
    deadlineMs: number;
    kubectlFor: (name: string) => ContextKubectl;
    say: (error: unknown) => string;
  },
): Promise<FleetRestoreEnd> {
  const base = { context: listing.context, restored: 0, untouched: 0, needsPerson: 0 };
  if ('error' in listing)
    return {
      ...base,
      runId: null,
      outcome: 'needs-attention',
      message: `its runs could not be read (${listing.error}); run this again when it answers`,
    };
  const [run, ...others] = parts.fleetRuns.runsOfFleet(listing.runs, fleet);
  if (!run) return { ...base, runId: null, outcome: 'no-journal', message: null };
  if (others.length > 0)
    return {
      ...base,
      runId: run.runId,
      outcome: 'needs-attention',
      message: `${others.length + 1} runs of this fleet run there; restore each with kguard rollback RUN --context ${listing.context}`,
    };
  if (run.liveness.state === 'finished')
    return { ...base, runId: run.runId, outcome: 'no-journal', message: `its run there ended (${run.liveness.why})` };
  const recorder = new parts.RunRecorder(reporter, session.redactor);
  const copies = parts.privateCopies(run.runId);
  try {
    const result = await parts.runRollback(
      { runId: run.runId, namespace: raw.namespace, deadlineMs, force: raw.force },
      {
        kubectl: kubectlFor(listing.context),
        clock: parts.systemClock,
        reporter: recorder,
        keepCopy: copies,
        probe: parts.probeHolder,
      },
    );
    const counts = { restored: result.restored, untouched: result.untouched, needsPerson: result.needsPerson };
    if (result.needsPerson > 0)
      return {
        ...base,
        ...counts,
        runId: run.runId,
        outcome: 'needs-attention',
        message: `kguard rollback ${run.runId} --context ${listing.context} finishes it`,
      };
    await Promise.all([copies.remove(), parts.removeCopiesOf(run.runId)]);
    return { ...base, ...counts, runId: run.runId, outcome: 'restored', message: null };
  } catch (error) {
    if (!(error instanceof KguardError)) throw error;
    return { ...base, runId: run.runId, outcome: 'needs-attention', message: say(error) };
  } finally {
    recorder.close();
  }
}
