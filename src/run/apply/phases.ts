// The apply itself, phase by phase (one phase when the apply has no phases): each phase is one
// kubectl apply of its parts, then what it changed is read, journalled and tracked to a verdict;
// the next phase starts only when this one is healthy. The definitions phase ends when its CRDs
// are Established (kinds/crd.ts), and a part kubectl could not read before is read then, leased,
// copied and journalled before its own apply. A phase that fails (a pre Job that fails, a refused
// dry run, kubectl apply stopping part-way) stops the run there: the later phases are not applied,
// and the restore (run/apply/restore-step.ts) undoes every phase, the last applied first.
import { KubectlError } from '../../errors.js';
import type { JournalEntry } from '../../journal/journal.js';
import type { RunJournal } from '../../journal/store.js';
import { NO_PROGRESS } from '../../kinds/engine.js';
import type { ApplyRequest, HeldApply } from '../../kubectl/types.js';
import { withOrigins } from '../../manifests/inputs.js';
import { PHASES } from '../../manifests/phases.js';
import type { ApplyOptions } from '../../model/options.js';
import type { AppliedObject, ApplyPhase } from '../../model/result.js';
import { changeOf, isChange } from '../../objects/compare.js';
import { objectKey, type KubeObject, type ObjectRef } from '../../objects/model.js';
import { detectChanges, track, type PendingObject } from './changes.js';
import type { Deps } from './deps.js';
import { readLater, type RunPart, type RunPlan } from './parts.js';
import { checkPermissions } from './before-write/permissions.js';
import { snapshot } from './understand.js';
import { Persistence, RETRY } from '../../restore/persist.js';

/** What the phases did so far: kept up to date, so that whatever breaks, the restore knows it. */
export interface PhasedApply {
  objects: PendingObject[];
  applied: AppliedObject[];
  applyError?: KubectlError;
  /** A part read only now was refused before anything of the run changed: the run ends as if refused before its apply. */
  refused?: Error;
  /** What the apply changed could not be read: nothing is restored automatically. */
  unreadable?: Error;
  applyMs: number;
  /**
   * When the write that --analysis judges was made (wall clock, epoch ms): the main phase's kubectl
   * apply (the one apply without phases), where the workloads change; the first phase's until then.
   */
  releasedAt?: number;
  /** The journal's last update: the restore waits for it. */
  journalled: Promise<unknown>;
}

export interface PhaseContext {
  plan: RunPlan;
  /** Every object's pre-apply copy; the copies of a part read only now join it. */
  before: Map<string, KubeObject>;
  /** Objects --prune would delete (an apply without phases only). */
  pruned: readonly ObjectRef[];
  journal?: RunJournal;
  /** The apply's kubectl, started during the guard with its input held back: the one stage's apply. */
  held?: HeldApply;
  /** Takes the run's Leases on objects read only now, before their copies are read (none without a journal). */
  lease?(refs: readonly ObjectRef[], phase: ApplyPhase): Promise<void>;
  /** Called once the last stage is applied and read, before its watch: nothing is read before the apply again. */
  allApplied?(): void;
}

interface Stage {
  phase?: ApplyPhase;
  parts: RunPart[];
}

export function newPhasedApply(): PhasedApply {
  return { objects: [], applied: [], applyMs: 0, journalled: Promise.resolve() };
}

export async function applyInPhases(
  context: PhaseContext,
  state: PhasedApply,
  options: ApplyOptions,
  deps: Deps,
): Promise<void> {
  const stages = stagesOf(context.plan.parts);
  const entries = new Map<string, JournalEntry>();
  for (const part of context.plan.parts)
    for (const ref of part.understood?.refs ?? [])
      entries.set(objectKey(ref), entryOf(ref, context.before, part.phase));
  for (const ref of context.pruned) entries.set(objectKey(ref), entryOf(ref, context.before, undefined));
  let stopped: string | undefined;
  for (const [number, stage] of stages.entries()) {
    if (stopped) {
      skip(stage, stopped, state, context, deps);
      continue;
    }
    const unread = stage.parts.filter((part) => !part.understood);
    if (unread.length > 0) {
      const failure = await readNow(unread, stage, entries, context, options, deps).catch(
        (error: unknown) => error as Error,
      );
      if (failure) {
        stopped = `phase ${stage.phase} could not be read: ${messageOf(failure)}`;
        if (!state.objects.some(isChange)) state.refused = failure;
        else {
          state.applyError = new KubectlError(`phase ${stage.phase} was not applied: ${messageOf(failure)}`);
          failUnjudged(state.objects, { source: 'apply', message: state.applyError.message });
        }
        skip(stage, stopped, state, context, deps);
        continue;
      }
    }
    const refs = [
      ...stage.parts.flatMap((part) => part.understood?.refs ?? []),
      ...(stage.phase ? [] : context.pruned),
    ];
    if (refs.length === 0) continue;
    if (stage.phase)
      deps.reporter.emit({ kind: 'phase', phase: stage.phase, number: number + 1, of: stages.length, objects: refs });
    const applyStartedAt = deps.clock.now();
    if (state.releasedAt === undefined || stage.phase === 'main') state.releasedAt = (deps.wallNow ?? Date.now)();
    const request = requestOf(stage.parts);
    const { applied, applyError } = await applyManifests(
      () => context.held?.release() ?? deps.kubectl.apply(request),
      // The held kubectl reads the file on its stdin: its messages name "STDIN" where they named the file.
      context.held
        ? new Map([['"STDIN"', JSON.stringify(request.filenames[0])], ...context.plan.origins])
        : context.plan.origins,
      deps,
    );
    state.applyMs += deps.clock.now() - applyStartedAt;
    state.applied.push(...applied);
    // An API server away during the apply is waited for (until --rollback-timeout): what the apply
    // changed is read once it answers, and restored, instead of every object left to a person.
    const away = new Persistence(deps.clock.now() + options.rollbackTimeoutMs, deps);
    let after: Map<string, KubeObject> | typeof RETRY | Error = RETRY;
    while (after === RETRY) after = await away.attempt(() => snapshot(refs, deps));
    if (after instanceof Error) {
      state.unreadable = new Error(away.outage(after.message, 'read it') ?? after.message);
      state.objects.push(...unreadable(refs, context.before));
      return;
    }
    const objects = detectChanges(refs, context.before, after, deps).map((object) => ({
      ...object,
      ...stageOf(stage),
    }));
    state.objects.push(...objects);
    for (const ref of refs)
      entries.set(objectKey(ref), { ...entries.get(objectKey(ref))!, applied: after.get(objectKey(ref)) ?? null });
    // The journal learns the applied copies while the tracking starts; the restore waits for it.
    journalUpdate(context.journal, { state: 'applied', objects: [...entries.values()] }, state, deps);
    if (applyError) {
      state.applyError = applyError;
      failUnjudged(objects, { source: 'apply', message: applyError.message });
      stopped = `kubectl apply failed in phase ${stage.phase}`;
      continue;
    }
    if (deps.signal?.aborted) {
      stopped = 'the run was cancelled';
      continue;
    }
    if (number === stages.length - 1) context.allApplied?.();
    await track(objects, options, deps);
    const failed = objects.find((object) => object.verdict && STOPS.has(object.verdict.state));
    if (failed) stopped = `phase ${stage.phase} failed`;
    // The kinds its CRDs define are served now: the next lookups read discovery again.
    if (stage.phase === 'definitions') deps.kubectl.refreshDiscovery();
  }
}

/** Verdicts after which no later phase is applied. */
const STOPS = new Set(['failed', 'timed-out', 'conflict', 'gone']);

/** Reads, leases and copies the parts kubectl could not read before, and journals their copies before they are applied. */
async function readNow(
  unread: RunPart[],
  stage: Stage,
  entries: Map<string, JournalEntry>,
  context: PhaseContext,
  options: ApplyOptions,
  deps: Deps,
): Promise<void> {
  const known = { refs: [...entries.values()].map((entry) => entry.ref), current: context.before };
  for (const part of unread) part.understood = await readLater(part, context.plan, known, options, deps);
  const refs = unread.flatMap((part) => part.understood!.refs);
  if (refs.length === 0) return;
  // May this user undo them (delete what they create, put back what they change)? Asked as before any apply.
  if (options.rollback !== 'none') for (const part of unread) await checkPermissions(part.understood!, options, deps);
  await context.lease?.(refs, stage.phase ?? 'main');
  for (const [key, object] of await snapshot(refs, deps)) context.before.set(key, object);
  for (const ref of refs) entries.set(objectKey(ref), entryOf(ref, context.before, stage.phase));
  // Their copies must be in the journal before they change: a run killed during this phase is then still restored whole.
  if (context.journal) {
    await context.journal.update({ objects: [...entries.values()] }).catch((error: unknown) => {
      throw new Error(`kguard could not journal their pre-apply copies (${messageOf(error)})`);
    });
  }
}

/** A phase not applied: said, and its objects reported as they are (unchanged, or absent). */
function skip(
  stage: Stage,
  because: string,
  state: PhasedApply,
  context: PhaseContext,
  deps: Pick<Deps, 'reporter'>,
): void {
  const refs = stage.parts.flatMap((part) => part.understood?.refs ?? []);
  const documents = stage.parts
    .filter((part) => !part.understood)
    .flatMap((part) => part.documents.map((document) => document.where));
  if (stage.phase) deps.reporter.emit({ kind: 'phase-skipped', phase: stage.phase, objects: refs, documents, because });
  for (const ref of refs) {
    const copy = context.before.get(objectKey(ref));
    const change = changeOf(copy, copy);
    state.objects.push({ ref, change, changeKind: change.change, changedFields: [], ...stageOf(stage) });
  }
}

function journalUpdate(
  journal: RunJournal | undefined,
  change: Parameters<RunJournal['update']>[0],
  state: PhasedApply,
  deps: Pick<Deps, 'reporter'>,
): void {
  if (!journal) return;
  state.journalled = state.journalled.then(() =>
    journal
      .update(change)
      .catch((error: unknown) => deps.reporter.emit({ kind: 'journal-warning', message: messageOf(error) })),
  );
}

/** Consecutive parts of one phase are one kubectl apply. */
function stagesOf(parts: readonly RunPart[]): Stage[] {
  const stages: Stage[] = [];
  for (const part of parts) {
    const last = stages[stages.length - 1];
    if (last && last.phase === part.phase) last.parts.push(part);
    else stages.push({ phase: part.phase, parts: [part] });
  }
  return stages;
}

/** The restore undoes the phases in reverse (restore/plan.ts restorePhases): their order, kept on each object. */
function stageOf(stage: Stage): { stage?: number; phase?: ApplyPhase } {
  return stage.phase ? { stage: PHASES.indexOf(stage.phase), phase: stage.phase } : {};
}

function entryOf(ref: ObjectRef, before: Map<string, KubeObject>, phase: ApplyPhase | undefined): JournalEntry {
  return { ref, before: before.get(objectKey(ref)) ?? null, ...(phase ? { stage: PHASES.indexOf(phase) } : {}) };
}

function requestOf(parts: readonly RunPart[]): ApplyRequest {
  const [first] = parts;
  return { ...first!.request, filenames: parts.flatMap((part) => part.request.filenames) };
}

async function applyManifests(
  apply: () => Promise<AppliedObject[]>,
  origins: ReadonlyMap<string, string>,
  deps: Pick<Deps, 'reporter'>,
) {
  try {
    const applied = await apply();
    deps.reporter.emit({ kind: 'applied', objects: applied, dryRun: false });
    return { applied, applyError: undefined };
  } catch (caught) {
    // Whatever went wrong, kubectl may have written some objects: what changed is read next.
    const error =
      caught instanceof KubectlError
        ? caught
        : new KubectlError(`kguard failed while kubectl applied: ${messageOf(caught)}`);
    const applyError = new KubectlError(
      withOrigins(error.message, origins),
      error.command,
      error.stderr,
      error.applied,
    );
    deps.reporter.emit({ kind: 'apply-failed', message: applyError.message, applied: [...error.applied] });
    return { applied: [...error.applied], applyError };
  }
}

/** Every changed object without a final verdict fails with `cause`: it is restored with the others. */
export function failUnjudged(objects: PendingObject[], cause: { source: 'apply' | 'internal'; message: string }): void {
  for (const object of objects.filter(isChange)) {
    const state = object.verdict?.state;
    if (state === 'failed' || state === 'timed-out' || state === 'conflict' || state === 'gone') continue;
    object.verdict = { state: 'failed', progress: NO_PROGRESS, findings: [], cause };
  }
}

/** Objects whose state after the apply could not be read: each may or may not have changed. */
function unreadable(refs: readonly ObjectRef[], before: Map<string, KubeObject>): PendingObject[] {
  return refs.map((ref): PendingObject => {
    const copy = before.get(objectKey(ref));
    return {
      ref,
      change: copy ? { change: 'configured', before: copy, after: copy, paths: [] } : { change: 'absent' },
      changeKind: copy ? 'configured' : 'created',
      changedFields: [],
    };
  });
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
