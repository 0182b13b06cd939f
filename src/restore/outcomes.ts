// How one object's restore ends when it is not done: kept for a person (with the commands and a
// private copy of its pre-apply state), or failed.
import type { RestoreResult } from '../model/result.js';
import type { KubeObject, ObjectRef } from '../objects/model.js';
import { manualRestore } from './manual.js';
import type { RestoreStep } from './steps.js';
import type { OwnersOutcome } from './field-owners.js';

/** What ending a restore needs: the commands' kubectl words and a private place for copies. */
type OutcomeDeps = {
  kubectl: { commandLine(args: readonly string[]): string };
  keepCopy(ref: ObjectRef, object: KubeObject): Promise<string>;
};

export async function keepBecause(
  step: RestoreStep,
  reason: 'conflict' | 'gone' | 'cannot-restore',
  detail: string,
  deps: OutcomeDeps,
  /** The object as last read (null: not there); the commands depend on it. */
  live?: KubeObject | null,
): Promise<RestoreResult> {
  const before = 'before' in step ? step.before : undefined;
  const applied = 'applied' in step ? step.applied : undefined;
  const manual = manualRestore({ ref: step.ref, action: 'keep', reason, before, applied }, live);
  const copyFile = manual.copy ? await deps.keepCopy(step.ref, manual.copy) : undefined;
  return {
    status: 'kept',
    reason,
    detail,
    commands: manual.commands((args) => deps.kubectl.commandLine(args), copyFile),
    copyFile,
  };
}

/** A step the plan kept (someone else's change, --rollback none, a protected kind): the commands and a private copy. */
export async function keptByPlan(
  step: Extract<RestoreStep, { action: 'keep' }>,
  deps: OutcomeDeps,
): Promise<RestoreResult> {
  const manual = manualRestore(step);
  const copyFile = manual.copy ? await deps.keepCopy(step.ref, manual.copy) : undefined;
  return {
    status: 'kept',
    reason: step.reason,
    detail: step.detail,
    commands: manual.commands((args) => deps.kubectl.commandLine(args), copyFile),
    copyFile,
  };
}

export async function failed(step: RestoreStep, reason: string, deps: OutcomeDeps): Promise<RestoreResult> {
  const manual = manualRestore(step);
  const copyFile = manual.copy ? await deps.keepCopy(step.ref, manual.copy) : undefined;
  return {
    status: 'failed',
    reason,
    commands: manual.commands((args) => deps.kubectl.commandLine(args), copyFile),
    copyFile,
  };
}

/** The owners' write as a restore result when it did not end written. */
export async function ownersOf(
  step: RestoreStep,
  outcome: Promise<OwnersOutcome>,
  deps: OutcomeDeps,
): Promise<{ object: KubeObject } | RestoreResult> {
  const owned = await outcome;
  if ('failure' in owned) return failed(step, owned.failure, deps);
  if ('moved' in owned) return keepBecause(step, owned.moved.state, owned.moved.detail, deps, owned.moved.live);
  return owned;
}
