import type { AppliedObject as AppliedObjectLine } from './model/result.js';

// Errors are for when kguard could not do its job. A failed rollout is a result, not an error.
// Each error type carries the exit code it maps to; only the CLI entry turns them into exits.

export const ExitCode = {
  Success: 0,
  /** Bad usage or input: nothing was applied. */
  InputError: 1,
  /** kubectl or the cluster failed before or during apply. */
  ClusterError: 2,
  /** A changed workload failed; what the apply changed was restored (or left in place with --no-rollback). */
  RolledBack: 3,
  /** A changed workload failed and its restore failed or was impossible: a person must act. */
  RollbackFailed: 4,
  /** A changed workload did not become healthy within --timeout (restored unless --no-rollback). */
  TimedOut: 5,
  /** Cancelled by SIGINT or SIGTERM (128 + 2, as shells report Ctrl-C); what the apply changed was restored. */
  Interrupted: 130,
  /** A bug in kguard itself (EX_SOFTWARE from sysexits.h), never a verdict about the cluster. */
  InternalError: 70,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

export abstract class KguardError extends Error {
  abstract readonly exitCode: ExitCode;
}

/** The user can fix the command line or the manifests. Nothing in the cluster was touched. */
export class InputError extends KguardError {
  readonly exitCode = ExitCode.InputError;
}

/** A signal arrived before the apply: nothing in the cluster was touched. */
export class InterruptedError extends KguardError {
  readonly exitCode = ExitCode.Interrupted;
}

/** kubectl is missing, the cluster is unreachable, RBAC denied, or kubectl apply failed. */
export class KubectlError extends KguardError {
  readonly exitCode = ExitCode.ClusterError;
  constructor(
    message: string,
    readonly command?: readonly string[],
    readonly stderr?: string,
    /** What kubectl apply reported as applied before it failed (a partial apply). */
    readonly applied: readonly AppliedObjectLine[] = [],
  ) {
    super(message);
  }
}

/**
 * The pre-apply copy of one object does not fit in a journal Secret (the API server's limit on a
 * Secret; kguard splits a journal across Secrets, not one object's copy), found before the apply:
 * nothing was applied.
 */
export class JournalTooLargeError extends KguardError {
  readonly exitCode = ExitCode.ClusterError;
  constructor(
    /** The object's copies as a journal Secret would hold them (gzip). */
    readonly bytes: number,
    readonly limitBytes: number,
    readonly objects: number,
    readonly namespace: string,
    /** The object, as "configmap/big (namespace shop)". */
    readonly object?: string,
  ) {
    super(
      `kguard cannot journal this apply: the pre-apply copy of ${object ?? `${objects} object(s) in namespace ${namespace}`} is ${kibibytes(bytes)} KiB compressed, ` +
        `more than a Secret may hold (${kibibytes(limitBytes)} KiB, the API server's limit): kguard splits a run journal across Secrets, but not one object's copy. ` +
        'Next: run with --no-journal (then a killed run cannot be finished by kguard rollback, and two runs on the same objects are not kept apart), ' +
        'or make the object smaller (its data, or the last-applied-configuration annotation: kubectl apply --server-side writes none); nothing was applied.',
    );
  }
}

function kibibytes(bytes: number): number {
  return Math.ceil(bytes / 1024);
}

/**
 * A dead run's journal lies on this apply's objects and finishing it left objects a person must
 * look at (someone else's change won, a write was refused): this run applied nothing, since its
 * "before" would be the dead run's half-applied state.
 */
export class UnfinishedRunError extends KguardError {
  readonly exitCode = ExitCode.RollbackFailed;
}
