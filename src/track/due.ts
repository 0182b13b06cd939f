// Which pending workloads a look judges. A watch's look comes at every change in the namespace,
// and at a thousand objects that is every few milliseconds for every workload: judging all of
// them each time was most of kguard's CPU at 334 Deployments (docs/performance.md). A workload
// whose rules read only what it controls (engine.ts readsOwnedOnly) is judged again when one of
// those copies changed, at the first look of each poll interval (a tick: the rules that depend
// on time alone, a grace, a deadline, when events are read) and at its deadline; otherwise its
// last verdict stands. The ticks are the tracker's, not each workload's: workloads judged at
// their own changes would otherwise each be due at another moment, and a look would come every
// few ms for one of them. Every other workload is judged at every look. Pure.
import { findingKeyParts } from '../classify/pod.js';
import { ownedCopies, podsNamed } from '../kinds/look-index.js';
import type { RolloutRules } from '../kinds/engine.js';
import type { WorkloadSnapshot } from '../model/snapshot.js';
import type { FirstSeen } from '../model/verdict.js';
import type { ObjectRef } from '../objects/model.js';

/** When a workload was last judged, and the copies that judgement read (undefined: not known). */
export interface LastJudged {
  at: number;
  read: readonly object[] | undefined;
}

export interface DueQuestion {
  workload: ObjectRef;
  rules: Pick<RolloutRules<unknown>, 'readsOwnedOnly'>;
  /** The findings remembered since they were first seen: the pods they name are read too. */
  firstSeen: FirstSeen;
  last: LastJudged | undefined;
  /** This look's reading of the namespace; undefined or an Error: no reading to compare. */
  snapshot: WorkloadSnapshot | Error | undefined;
  now: number;
  /** The last tick at or before `now` (tickAt). */
  tickAt: number;
  /** When the workload's deadline comes (the clock's time). */
  deadlineAt: number;
}

/** Undefined: its last verdict stands. Otherwise what to remember once it is judged at this look. */
export function dueToJudge(question: DueQuestion): LastJudged | undefined {
  const { snapshot, now, last } = question;
  if (snapshot === undefined || snapshot instanceof Error) return { at: now, read: undefined };
  const read = question.rules.readsOwnedOnly ? copiesRead(snapshot, question.workload, question.firstSeen) : undefined;
  const stands =
    read !== undefined &&
    last?.read !== undefined &&
    last.at >= question.tickAt &&
    now < question.deadlineAt &&
    sameCopies(read, last.read);
  return stands ? undefined : { at: now, read };
}

/** The tracker's last tick at or before `now`: one every poll interval from its start. */
export function tickAt(startedAt: number, now: number, pollIntervalMs: number): number {
  if (pollIntervalMs <= 0 || now <= startedAt) return startedAt;
  return startedAt + Math.floor((now - startedAt) / pollIntervalMs) * pollIntervalMs;
}

/** Its object, what it controls, and the pods its remembered findings name (engine.ts stillFailing reads them by name). */
function copiesRead(snapshot: WorkloadSnapshot, workload: ObjectRef, firstSeen: FirstSeen): object[] {
  const copies: object[] = ownedCopies(snapshot, workload);
  for (const key of firstSeen.keys()) copies.push(...podsNamed(snapshot.pods, findingKeyParts(key).pod));
  return copies;
}

function sameCopies(a: readonly object[], b: readonly object[]): boolean {
  return a.length === b.length && a.every((copy, index) => copy === b[index]);
}
