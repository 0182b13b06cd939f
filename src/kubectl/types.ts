// What kubectl's adapter takes and returns: the connection, the apply request, and the results of
// each capability (dry runs, writes, lists and watches). Types only.
import type { KubeEvent } from '../kube.js';
import type { AppliedObject, Target } from '../model/result.js';
import type { WorkloadSnapshot } from '../model/snapshot.js';
import type { KubeObject, ObjectRef } from '../objects/model.js';
import type { WatchEvent } from './channel/watch-events.js';

export interface Connection {
  binary: string;
  /** Flags that say which cluster and who (--context, --kubeconfig, --as, --server...), for every call. */
  connectionArgs: readonly string[];
  /** How many kubectl processes may run at once (--concurrency); watch streams are not counted. */
  concurrency?: number;

  /** Bound on each request kubectl makes (its --request-timeout). */
  requestTimeout: string;
  /** Deadline for a read-only kubectl process, so one hung call cannot stall the run. */
  readDeadlineMs: number;
  /**
   * Writes answered with a transient error (kubectl/transient.ts) are tried again after these
   * waits; none when absent.
   */
  retry?: { delaysMs: readonly number[]; sleep(ms: number): Promise<void> };
  /**
   * Sees every object kubectl returns (snapshots, dry-run results, restore reads): the CLI learns
   * the values of Secrets, old and new, to redact them from everything it prints.
   */
  observe?: (objects: readonly KubeObject[]) => void;
  /** kubectl processes started outside the calls: the API channel's proxy (api-channel.ts). */
  channelProcesses?: () => number;
  /** The run's connection is pinned: its API channel may start its proxy now, beside the dry runs. True when raw calls will go through it. */
  pinned?: (connectionArgs: readonly string[]) => boolean;
  /** The run's target, already read from the kubeconfig file (the CLI's early start, early-start.ts): pinTarget pins it without reading again. */
  target?: Target;
}

export interface ApplyRequest {
  /** `-f` values kubectl reads: paths, directories, or "-" for `stdin`. */
  filenames: readonly string[];
  recursive: boolean;
  /** The bytes for `-f -`, read once and sent to every kubectl call. */
  stdin?: string;
  namespace?: string;
  /** kubectl apply flags (after `--`, and --server-side/--field-manager), in order. */
  applyArgs: readonly string[];
  /** How long the whole kubectl apply may take before it is stopped. */
  deadlineMs: number;
}

/** A kubectl apply started with nothing to read yet (ApplyFamily.holdApply). */
export interface HeldApply {
  /** Sends its bytes: what `apply` returns (a kubectl that ended before it got them is started again). */
  release(): Promise<AppliedObject[]>;
  /** Stops it, having sent nothing; nothing once released. */
  cancel(): void;
  /** Settles once its kubectl has ended, however it ended. */
  readonly ended: Promise<void>;
}

export type DryRunResult =
  | { ok: true; objects: KubeObject[]; pruned: KubeObject[]; warnings: string }
  | { ok: false; stderr: string; timedOut: boolean };

export type WriteResult =
  | { ok: true; object?: KubeObject }
  | { ok: false; conflict: boolean; notFound: boolean; message: string; stderr: string };

/** A collection as the API server listed it: its objects and the list's resourceVersion. */
export type CollectionList =
  | { ok: true; items: KubeObject[]; resourceVersion: string }
  | { ok: false; message: string; transient: boolean };

/** A running watch (`kubectl get --raw '…?watch=1'`). */
export interface WatchStream {
  /** How it ended: `ended` when the server closed it (its timeout, a cut); never rejects. */
  done: Promise<{ ended: true } | { ended: false; message: string; transient: boolean }>;
  /** Stops its kubectl at once. */
  stop(): void;
}

/** What to list or watch: a type argument as the tracker names it, where, and which objects. */
export interface CollectionQuery {
  type: string;
  namespace: string;
  labelSelector?: string;
  fieldSelector?: string;
}

export interface ApiResource {
  /** Plural resource name, e.g. "deployments". */
  name: string;
  namespaced: boolean;
  /** Its API serves a status subresource (discovery lists "NAME/status"): a controller writes its status. Known only from a group version's own discovery. */
  statusSubresource?: boolean;
}

/** Whether this user may `verb` the `resource` of `group` in `namespace` ('' for cluster-scoped resources). */
export interface AccessQuestion {
  verb: string;
  group: string;
  resource: string;
  namespace: string;
}

export interface AccessAnswer extends AccessQuestion {
  allowed: boolean;
}

export type LogsResult = { ok: true; text: string } | { ok: false; error: string };

export type { Target };

/** The process side: how many kubectl processes ran, the command a person would type, cancelling reads. */
export interface KubectlProcess {
  readonly spawned: number;
  /** The most kubectl processes (watch streams aside) that ran at once: never above the connection's concurrency. */
  readonly peakProcesses: number;
  /** The exact command a person would type, with this run's connection flags. */
  commandLine(args: readonly string[]): string;
  /** Calls made until `stopCancelling()` end at once when `signal` aborts: only safe for reads. */
  cancelReadsOn(signal: AbortSignal | undefined): void;
  stopCancelling(): void;
  /** The kubeconfig's context, cluster, user and namespace for this connection (`kubectl config view --minify`); undefined without a kubeconfig context (in a pod). */
  target(): Promise<Target | undefined>;
  /** Resolves the target and passes it (--context, --cluster, --user) on every later call; undefined when there is none to pin. */
  pinTarget(): Promise<Target | undefined>;
  /**
   * Starts the API channel (one `kubectl proxy`) for the reads, writes and watches to come. True
   * when raw calls will go through it; false when each would be a kubectl process of its own (no
   * channel: KGUARD_KUBECTL_PROXY=0, Windows, or a kubectl without one).
   */
  openChannel(): boolean;
}

/** kubectl's apply family over the same inputs: kustomize, dry runs, diff, apply. */
export interface ApplyFamily {
  kustomize(directory: string): Promise<string>;
  dryRun(request: ApplyRequest, strategy: 'client' | 'server'): Promise<DryRunResult>;
  dryRunActions(request: ApplyRequest): Promise<AppliedObject[]>;
  diff(request: ApplyRequest, refs: readonly ObjectRef[]): Promise<Map<string, string[]>>;
  apply(request: ApplyRequest): Promise<AppliedObject[]>;
  /**
   * `apply` of `-f -` with its kubectl started now and its stdin held back: kubectl starts and
   * waits for its input, which `release` sends (then it is `apply`); `cancel` stops it having sent
   * nothing. The request holds its bytes (`stdin`).
   */
  holdApply(request: ApplyRequest): HeldApply;
  /**
   * The live objects the same inputs name, each read by name, kubectl resolving their identities
   * as its apply does (`kubectl get -f … -o json --ignore-not-found`; `applyArgs` only -l): the ones
   * that do not exist are absent.
   */
  readApplied(request: ApplyRequest): Promise<KubeObject[]>;
}

/** Reads of objects, events, logs and discovery. */
export interface ObjectReads {
  listObjects(namespace: string, types: readonly string[]): Promise<KubeObject[]>;
  getObject(type: string, namespace: string, name: string): Promise<KubeObject | undefined>;
  workloadSnapshot(namespace: string, types: readonly string[]): Promise<WorkloadSnapshot>;
  events(namespace: string, objectName: string): Promise<KubeEvent[]>;
  logs(
    namespace: string,
    pod: string,
    container: string,
    options: { tail: number; previous: boolean },
  ): Promise<LogsResult>;
  /** Resource names and scope by "group/Kind": of the given group versions only (their own discovery documents), or of everything kubectl api-resources lists. */
  apiResources(apiVersions?: readonly string[]): Promise<Map<string, ApiResource>>;
  /** Discovery is read again from now on (kinds a CRD of this run defines have appeared). */
  refreshDiscovery(): void;
  /** Objects of one type with a label selector: in one namespace, or in all of them. */
  listLabelled(type: string, namespace: string | undefined, selector: string): Promise<KubeObject[]>;
  /** What this user may do, each question answered by the API server (SelfSubjectAccessReviews, one kubectl process). */
  reviewAccess(questions: readonly AccessQuestion[]): Promise<AccessAnswer[]>;
}

/** Writes with preconditions: a PUT with resourceVersion, a POST, a DELETE by uid. */
export interface ConditionalWrites {
  replace(object: KubeObject, path: string, deadlineMs: number): Promise<WriteResult>;
  create(object: KubeObject, collectionPath: string, deadlineMs: number): Promise<WriteResult>;
  deleteExact(
    path: string,
    preconditions: { uid: string; resourceVersion?: string },
    deadlineMs: number,
  ): Promise<WriteResult>;
}

/** Lists with their resourceVersion, and watches from it. */
export interface ListWatch {
  listCollection(query: CollectionQuery): Promise<CollectionList>;
  watchCollection(
    query: CollectionQuery,
    from: { resourceVersion: string; timeoutSeconds: number },
    onEvent: (event: WatchEvent) => void,
  ): WatchStream;
}

/** kubectl, by capability; a stage asks only for the capabilities it uses (`Pick`), and tests fake those. */
export type Kubectl = KubectlProcess & ApplyFamily & ObjectReads & ConditionalWrites & ListWatch;
