// Where one object's rollout stands: the one verdict union every stage shares. Types only.
import type { FieldPath, KubeObject } from '../objects/model.js';
import type { Finding, ReasonRule } from './findings.js';

export interface Progress {
  /** The Deployment's revision number, or the name of a StatefulSet's or DaemonSet's ControllerRevision. */
  revision?: number | string;
  newReplicaSet?: string;
  /** How far it is, in the kind's own words ("2/3 pods updated", "0/1 completions"); without it, ready/desired pods. */
  summary?: string;
  desired: number;
  updated: number;
  ready: number;
  available: number;
}

export type Cause =
  | { source: 'pod'; finding: Finding }
  /** The object's own word that it failed: a Deployment's ProgressDeadlineExceeded, a Job's Failed, kstatus Stalled. */
  | { source: 'condition'; reason: string; message: string; rule: ReasonRule }
  /** kubectl apply itself failed part-way: nothing was judged, what it changed is restored. */
  | { source: 'apply'; message: string }
  /** kguard itself failed after the apply: what the apply changed is restored rather than left unwatched. */
  | { source: 'internal'; message: string };

/**
 * Where one object ended (or stands, while it is watched):
 * - progressing, healthy, failed, timed-out: a tracked rollout;
 * - conflict, gone: someone else changed or deleted it while kguard watched (never overwritten);
 * - applied: changed, with nothing to watch (a ConfigMap, a CronJob, kguard.dev/track: "false").
 * notes: what was seen and is not a reason to wait (a new pod its node evicted, whose replacement
 * counts; replicas an autoscaler writes), said once on the object's line.
 */
export type Verdict =
  | { state: 'progressing'; progress: Progress; findings: Finding[]; waitingFor: string; notes?: string[] }
  /** detail: how it ended healthy when that is not a rollout (a Job the TTL controller deleted once it completed). */
  | { state: 'healthy'; progress: Progress; findings: Finding[]; detail?: string; notes?: string[] }
  | { state: 'failed'; progress: Progress; findings: Finding[]; cause: Cause; notes?: string[] }
  | { state: 'timed-out'; progress: Progress; findings: Finding[]; waitingFor: string; notes?: string[] }
  | { state: 'conflict'; progress: Progress; findings: Finding[]; detail: string; notes?: string[] }
  | { state: 'gone'; progress: Progress; findings: Finding[]; detail: string; notes?: string[] }
  | { state: 'applied'; detail?: string };

export type VerdictState = Verdict['state'];

/** A verdict of a watched rollout: everything but "applied". */
export type RolloutVerdict = Exclude<Verdict, { state: 'applied' }>;

/** What kguard expects the object to look like: as it was right after the apply (or the restore). */
export interface Expectation {
  /** The object as kguard left it. */
  applied: KubeObject;
  /**
   * The fields this apply decided (objects/owners.ts fieldsOfApply): another writer's change to
   * one of them is someone else's change that wins; to any other field it is a crowded
   * cluster's normal life (an HPA's replicas, a binder's volumeName). Absent: every field counts.
   */
  ours?: readonly FieldPath[];
  /**
   * metadata.generation before kguard's write (the pre-apply copy's); absent for a new object or a
   * restore. The same generation means the write changed no spec: the standing status still speaks for it.
   */
  generationBefore?: number;
  /** Its pre-apply copy (absent: created by this apply or a restore). */
  before?: KubeObject;
  /**
   * The pod-template labels, before the apply, of the objects this apply changed in the object's
   * namespace: whether the apply moved pods away from a Service's selector.
   */
  templatesBefore?: ReadonlyArray<Record<string, string>>;
}

export interface Moment {
  now: number;
  startedAt: number;
  timeoutMs: number;
}

/** When each finding's family (by findingKey) or failing condition was first seen, in clock milliseconds. */
export type FirstSeen = ReadonlyMap<string, number>;
