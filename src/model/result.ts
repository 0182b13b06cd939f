// What a run found, as plain data. Types only: run/outcome.ts maps it to an outcome and exit code.
import type { KubeObject, ObjectRef } from '../objects/model.js';
import type { Diagnosis } from './findings.js';
import type { Verdict, VerdictState } from './verdict.js';
import type { Verification } from './verify.js';

/** What the apply did to one object, from its copies before and after. */
export type ObjectChange =
  | { change: 'created'; after: KubeObject }
  | { change: 'configured'; before: KubeObject; after: KubeObject; paths: string[] }
  | { change: 'unchanged'; before: KubeObject; after: KubeObject }
  | { change: 'recreated'; before: KubeObject; after: KubeObject }
  | { change: 'deleted'; before: KubeObject }
  | { change: 'absent' };

export type ChangeKind = ObjectChange['change'];

export type ApplyAction = 'created' | 'configured' | 'unchanged' | 'serverside-applied';

/** One line of `kubectl apply` output: `deployment.apps/web configured`. */
export interface AppliedObject {
  /** kubectl's resource name: "deployment.apps", "service", "configmap". */
  resource: string;
  name: string;
  action: ApplyAction;
}

export type RollbackMode = 'all' | 'failed' | 'none';

/**
 * The phases of an apply that holds CRDs or kguard.dev/phase objects (manifests/phases.ts): one
 * kubectl apply each, in this order, each healthy before the next; restored in reverse.
 */
export type ApplyPhase = 'definitions' | 'pre' | 'main' | 'post';

/** The cluster and identity one run talks to, resolved once from the kubeconfig at its start. */
export interface Target {
  context: string;
  cluster: string;
  user: string;
  /** The context's namespace ("default" when it names none). */
  namespace: string;
}

/**
 * Why an object was not written back. cannot-restore: no write the API server takes restores it (a
 * claim's storage request that grew); finished-job: a Job that had finished is never created again.
 */
export type KeepReason =
  | 'no-rollback'
  | 'not-failed'
  | 'keep-created'
  | 'protected-kind'
  | 'controller-owned'
  | 'conflict'
  | 'gone'
  | 'cannot-restore'
  | 'finished-job'
  /** --analysis could not judge the release, and no journal keeps the run for `kguard rollback`: a person decides. */
  | 'inconclusive';

export type RestoreResult =
  /**
   * notes: what a kind's restore hook did besides the write (kinds/table.ts afterRestore), or why
   * it was replaced. replaced: deleted and created again from its pre-apply copy (a new uid),
   * because the API server refuses to write the copy over it (an immutable ConfigMap).
   */
  | {
      status: 'restored' | 'deleted' | 'recreated' | 'replaced';
      restored?: KubeObject;
      differences: string[];
      notes?: string[];
    }
  | { status: 'kept'; reason: KeepReason; detail?: string; commands: string[]; copyFile?: string }
  | { status: 'failed'; reason: string; commands: string[]; copyFile?: string };

export interface ObjectResult {
  ref: ObjectRef;
  /** The phase that applied it, in a phased apply. */
  phase?: ApplyPhase;
  /** What the apply did to it. */
  changeKind: ChangeKind;
  /** The fields the apply changed (for "configured"). */
  changedFields: string[];
  /** Whether kguard watched it to a verdict. */
  tracked?: boolean;
  verdict?: Verdict;
  diagnosis?: Diagnosis;
  /** From the end of the apply to the verdict. */
  verdictAfterMs?: number;
  restore?: RestoreResult;
  /** A restored workload, tracked until healthy again. */
  afterRestore?: {
    state: VerdictState;
    summary?: string;
    elapsedMs: number;
    /** Not healthy, as before the apply: why the pre-apply copy was not healthy (kinds/before.ts). Restored all the same. */
    failingBefore?: string;
  };
}

/** What a registry said of one image the apply changes, before the apply (images/check.ts). */
export interface ImageVerdict {
  object: ObjectRef;
  container: string;
  /** As the manifest writes it. */
  image: string;
  /** missing refuses the run; unknown ("cannot know": unreachable, no usable credentials) goes on. */
  verdict: 'exists' | 'missing' | 'unknown';
  /** The registry's answer, or why it could not be asked. Never a credential. */
  detail: string;
}

export interface RunResult {
  /** "preview" for --dry-run: nothing was changed. */
  mode: 'apply' | 'preview';
  /** A preview with kubectl diff (--diff): like `kubectl diff`, it exits 1 when something would change. */
  diff?: boolean;
  objects: ObjectResult[];
  applied: AppliedObject[];
  /** Set when kubectl apply failed part-way (what it had changed was restored). */
  applyError?: string;
  /** Set when a signal cancelled the run after the apply ("interrupted by SIGTERM"). */
  cancelled?: string;
  rollbackMode: RollbackMode;
  /** Where every kubectl call of the run went, when the kubeconfig names it. */
  target?: Target;
  /** What the checks (--verify, --verify-job) and the bake (--bake) found, when any ran. */
  verification?: Verification;
  /** Each changed image's registry verdict, asked before the apply (--image-check). */
  images?: ImageVerdict[];
  /** Where the run ended, decided once (run/apply/result.ts outcomeOf) when the run assembles its result. */
  outcome: Outcome;
  applyMs: number;
  totalMs: number;
  kubectlProcesses: number;
  /** Dead runs whose journals held objects of this apply, finished before it read its "before" (restore/recovery/dead-runs.ts). */
  recoveredRuns?: RecoveredRun[];
}

/** A dead run this run finished first, from its journal. */
export interface RecoveredRun {
  runId: string;
  /** Objects written back, deleted or created again. */
  restored: number;
  /** Objects already as they were before that run. */
  untouched: number;
}

export type Outcome =
  | 'interrupted'
  | 'succeeded'
  | 'unchanged'
  | 'previewed'
  | 'rolled-back'
  | 'failed'
  | 'timed-out'
  | 'needs-attention';
