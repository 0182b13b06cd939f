// The run's journal around the apply: where it lives (the leases' too), its start,
// and its end (deleted when no person is needed, kept with the `kguard rollback` command when one is).
import { objectKey, type KubeObject, type ObjectRef } from '../../objects/model.js';
import { thisProcess } from '../../journal/holder.js';
import type { JournalPlacement } from '../../journal/pieces.js';
import { journalExpiry, RunJournal } from '../../journal/store.js';
import { outcomeOf } from './result.js';
import type { RunResult } from '../../model/result.js';
import { beyondRollback } from '../../restore/plan.js';
import type { ApplyOptions } from '../../model/options.js';
import { KUBECTL_FLAGS } from '../../kubectl/flags.js';
import type { Deps } from './deps.js';

/** The apply's namespace: its first namespaced object's (verify Jobs run there). */
export function homeNamespace(refs: readonly ObjectRef[], namespace: string | undefined): string {
  return refs.find((ref) => ref.namespace !== '')?.namespace ?? namespace ?? 'default';
}

/**
 * Where a run journals (journal/pieces.ts) and leases: each namespace's objects in that namespace,
 * except those in namespaces the apply creates; cluster-scoped ones in the journal namespace
 * (--journal-namespace), which is then the run's home (its first journal Secret; its Leases name
 * it), else the first namespace the apply holds. `namespaces`: every namespace with a journal
 * Secret, where expired journals are cleaned too.
 */
export function journalPlace(
  refs: readonly ObjectRef[],
  current: ReadonlyMap<string, KubeObject>,
  clusterNamespace: string,
): JournalPlace {
  const created = new Set(
    refs
      .filter((ref) => ref.kind === 'Namespace' && ref.apiVersion === 'v1' && !current.has(objectKey(ref)))
      .map((ref) => ref.name),
  );
  const clusterScoped = refs.some((ref) => ref.namespace === '');
  const namespaced = refs
    .map((ref) => ref.namespace)
    .filter((namespace) => namespace !== '' && !created.has(namespace));
  const namespaces = [...new Set([...(clusterScoped ? [clusterNamespace] : []), ...namespaced])];
  return { placement: { clusterNamespace, created }, home: namespaces[0] ?? clusterNamespace, namespaces };
}

export interface JournalPlace {
  placement: JournalPlacement;
  home: string;
  namespaces: string[];
}

export async function startJournal(
  runId: string,
  { placement, home }: JournalPlace,
  refs: readonly ObjectRef[],
  before: Map<string, KubeObject>,
  options: ApplyOptions,
  deps: Pick<Deps, 'kubectl' | 'reporter'>,
  /** Each object's phase position in a phased apply (run/apply/phases.ts). */
  stages: ReadonlyMap<string, number> = new Map(),
): Promise<RunJournal> {
  const now = new Date();
  const journal = await RunJournal.start(
    deps.kubectl,
    {
      runId,
      namespace: home,
      startedAt: now.toISOString(),
      expiresAt: journalExpiry(now),
      state: 'applying',
      command: options.commandLine ?? 'kguard apply',
      holder: thisProcess(),
      requestTimeoutMs: options.requestTimeoutMs,
      ...(options.runLabel ? { runLabel: options.runLabel } : {}),
      ...(options.fleet ? { fleet: options.fleet } : {}),
      objects: refs.map((ref) => {
        const stage = stages.get(objectKey(ref));
        return { ref, before: before.get(objectKey(ref)) ?? null, ...(stage === undefined ? {} : { stage }) };
      }),
    },
    placement,
    options.timeoutMs,
  );
  deps.reporter.emit({
    kind: 'journal',
    runId,
    namespace: journal.namespace,
    pieces: journal.pieces,
    ...(options.runLabel ? { runLabel: options.runLabel } : {}),
  });
  return journal;
}

/**
 * A run that needs no person is over: its journal goes (a fleet's healthy run excepted). One that does keeps its journal, and
 * says how `kguard rollback` finishes it.
 */
export async function endJournal(
  journal: RunJournal,
  result: RunResult,
  deps: Pick<Deps, 'kubectl' | 'reporter'>,
  keepWhenHealthy = false,
): Promise<void> {
  // A fleet's healthy cluster: the fleet removes the journal when every cluster is healthy, or restores from it.
  if (keepWhenHealthy && result.outcome === 'succeeded') return;
  if (!rollbackCanHelp(result)) {
    await journal.finish().catch((error: unknown) =>
      deps.reporter.emit({
        kind: 'journal-warning',
        message: error instanceof Error ? error.message : String(error),
        commands: [runCommand('forget', journal.runId, deps.kubectl)],
      }),
    );
    return;
  }
  const command = rollbackCommand(journal.runId, deps.kubectl);
  deps.reporter.emit({
    kind: 'journal-kept',
    runId: journal.runId,
    namespace: journal.namespace,
    pieces: journal.pieces,
    command,
  });
}

/**
 * Whether `kguard rollback` could still do something: a person is needed for more than what no
 * restore can put back (a claim's grown storage request, a finished Job that was pruned), which
 * it would only keep again.
 */
function rollbackCanHelp(result: RunResult): boolean {
  const rest = result.objects.map((object) =>
    object.restore?.status === 'kept' && beyondRollback(object.restore.reason)
      ? { ...object, restore: undefined }
      : object,
  );
  return result.outcome === 'needs-attention' && outcomeOf({ ...result, objects: rest }) === 'needs-attention';
}

/**
 * `kguard rollback RUN` with the flags kguard rollback takes (--context, --kubeconfig): the run's
 * pinned context included, so the command finds the cluster this run changed.
 */
export function rollbackCommand(runId: string, kubectl: Pick<Deps['kubectl'], 'commandLine'>): string {
  return runCommand('rollback', runId, kubectl);
}

/**
 * `kguard COMMAND RUN` with the run's --context and --kubeconfig, and the kubectl flags that say
 * who and where which kguard's run commands take too (--as, --server...; a --token is printed
 * redacted, for the person to fill in).
 */
export function runCommand(
  command: 'rollback' | 'forget' | 'unlock',
  runId: string,
  kubectl: Pick<Deps['kubectl'], 'commandLine'>,
): string {
  // The words as kubectl.commandLine shell-quoted them ('--as=ci bot' stays one word).
  const words = kubectl.commandLine([]).match(/'(?:[^']|'\\'')*'|\S+/g) ?? [];
  const flags = words.slice(1).filter((arg) => RUN_COMMAND_FLAGS.has(flagName(arg)));
  return ['kguard', command, runId, ...flags].join(' ');
}

/** `--as=x`, `'--token=[redacted]'` (shell-quoted), `--insecure-skip-tls-verify` → the flag's name. */
function flagName(word: string): string {
  return (word.replace(/^'/, '').split('=')[0] ?? '').replace(/'$/, '');
}

const RUN_COMMAND_FLAGS = new Set([
  '--context',
  '--kubeconfig',
  ...KUBECTL_FLAGS.filter((flag) => flag.native && flag.role === 'connection').flatMap((flag) => [
    flag.long,
    ...(flag.short ? [flag.short] : []),
  ]),
]);
