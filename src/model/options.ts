// The options of a guarded apply, typed, with the one table of their defaults. The CLI parses its
// strings into these; the library passes them straight in.
import type { AnalysisConfig } from './analysis.js';
import type { HealthRule, HealthRules } from './health-rules.js';
import type { FleetRun } from './fleet.js';
import type { RollbackMode } from './result.js';
import type { Watching } from './events.js';

/** Which manifests: kubectl's -f (files, directories, URLs, "-"), -R and -k. */
export interface ManifestInput {
  filenames: readonly string[];
  recursive: boolean;
  kustomize?: string;
}

export interface ApplyOptions {
  manifests: ManifestInput;
  namespace?: string;
  /** kubectl apply flags: --server-side, --field-manager and whatever came after `--`. */
  applyArgs: readonly string[];
  /** The subset of applyArgs that selects objects (-l): kubectl's reading must see it too. */
  selectionArgs: readonly string[];
  /** A preview: nothing changes. */
  dryRun?: 'client' | 'server';
  /** With a server preview: `kubectl diff` of every object the apply would create or change. */
  diff?: boolean;
  timeoutMs: number;
  rollbackTimeoutMs: number;
  pollIntervalMs: number;
  /** Commands run once every changed workload is healthy (--verify); any exit but 0 restores the apply. */
  verifyCommands: readonly string[];
  /** Job manifests run in the cluster after the rollout (--verify-job), like `helm test`. */
  verifyJobs: readonly string[];
  /** How long each check may take (--verify-timeout). */
  verifyTimeoutMs: number;
  /** Keep the verify Jobs instead of deleting them (--keep-verify). */
  keepVerify: boolean;
  /** After healthy and verified, how long to keep watching (--bake; --settle is its old name). 0: no bake. */
  bakeMs: number;
  /** During the bake, run the --verify commands again this often (--verify-interval). 0: not again. */
  verifyIntervalMs: number;
  /** How many successful runs' records to keep per namespace (--history), for kguard history and undo; 0 keeps none. */
  history: number;
  /** Poll instead of watching (--poll); watching falls back to polling by itself when it must. */
  poll: boolean;
  rollback: RollbackMode;
  /** Keep objects this run created when restoring (they are reported with their delete command). */
  keepCreated: boolean;
  /** Journal the run in the cluster and lease its objects (--no-journal turns both off). */
  journal: boolean;
  /** How long to wait for objects another run holds. */
  lockTimeoutMs: number;
  /** Where cluster-scoped objects are journalled and leased (--journal-namespace); each namespace's objects are journalled in it. */
  journalNamespace: string;
  /** kguard's own command line, recorded in the journal for `kguard status`. */
  commandLine?: string;
  /** --run-label: the CD tool's name for this run (PipeCD's SR_DEPLOYMENT_ID, a CI run id), kept in the journal, history, events and report. */
  runLabel?: string;
  /** How many of a failing container's last lines the text output shows; 0 reads no logs. */
  logLines: number;
  /** How many kubectl processes may run at once (--concurrency); watch streams are not counted. */
  concurrency: number;
  /** kubectl's deadline for each API request (--request-timeout; kubectl sends it as `timeout=`). */
  requestTimeoutMs: number;
  /** A fleet's cluster: a healthy run keeps its journal, so the fleet can restore it if a later cluster fails. */
  keepJournal?: boolean;
  /** A fleet's cluster: the fleet run, journalled with the run so `kguard rollback FLEET --contexts` finds it. */
  fleet?: FleetRun;
  /** Health rules for custom resources (--health-rules FILE), over the built-in table; a rule of the same id replaces the built-in one. */
  healthRules?: HealthRules;
  /** Prometheus queries that judge the release during the bake, or once after the rollout (--analysis FILE). */
  analysis?: AnalysisConfig;
  /** Ask each changed image's registry whether it exists before the apply (--image-check; default DEFAULTS.imageCheck). */
  imageCheck?: 'on' | 'off';
  /** Registries asked over plain HTTP (--insecure-registry), besides loopback ones. */
  insecureRegistries?: readonly string[];
  /** A new pod that runs but is never Ready fails the rollout after this long (--readiness-grace; default DEFAULTS.readinessGraceMs). */
  readinessGraceMs?: number;
  /** A custom resource of a kind that serves a status subresource waits this long for its controller's first status (--status-grace; default DEFAULTS.statusGraceMs). */
  statusGraceMs?: number;
}

/** What a guarded apply needs beyond the run's options: the connection flags for every kubectl call. */
export interface GuardedApplyOptions extends ApplyOptions {
  connectionArgs: string[];
}

/** Every default, once: the flags' help, the CLI and the library read them here. */
export const DEFAULTS = {
  timeoutMs: 5 * 60_000,
  pollIntervalMs: 2_000,
  verifyTimeoutMs: 2 * 60_000,
  bakeMs: 0,
  verifyIntervalMs: 0,
  history: 10,
  rollback: 'all',
  lockTimeoutMs: 5 * 60_000,
  journalNamespace: 'kube-system',
  logLines: 5,
  concurrency: 8,
  requestTimeoutMs: 30_000,
  readinessGraceMs: 5 * 60_000,
  statusGraceMs: 30_000,
  imageCheck: 'on',
} as const satisfies Partial<ApplyOptions>;

/** How one tracking (of the rollout, or of the restore) runs. */
export interface TrackOptions {
  timeoutMs: number;
  pollIntervalMs: number;
  /** What is watched: the new rollout, the restored workloads, or a verify Job (--verify-job); its events say it. */
  watching: Watching;
  /** Stop watching the others as soon as one fails: they will all be restored anyway. */
  stopWhenAnyFails: boolean;
  /** Watch the objects (the default); without it, or when watches fail, poll. */
  watch: boolean;
  /** How many of a failing container's last lines the text output shows (--log-lines); 0 reads none. */
  logLines: number;
  /** The health rules custom resources are judged by (the built-in table when absent). */
  healthRules?: readonly HealthRule[];
  /** A new pod that runs but is never Ready fails after this long; undefined: it is waited for until the deadline. */
  readinessGraceMs?: number;
  /** A custom resource whose kind serves a status subresource waits this long for its controller's first status; undefined: not at all (kstatus). */
  statusGraceMs?: number;
}
