// Progress lines in a CI log: news at once (the first line, a new kind of wait), a change of
// numbers once every 5 s per object at most, the verdict always.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/model/events.js';
import { plainLines } from '../../src/report/plain.js';
import { PROGRESS_INTERVAL_MS, ProgressThrottle } from '../../src/report/progress-throttle.js';
import { ManualClock, RecordingReporter } from '../fakes.js';

const web = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'shop', name: 'web' };
const api = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'shop', name: 'api' };

function progress(
  ready: number,
  workload = web,
  phase: 'rollout' | 'rollback' = 'rollout',
  waitingFor = '1 old replicas are pending termination',
): RunEvent {
  return {
    kind: 'progress',
    workload,
    progress: { desired: 4, updated: 4, ready, available: ready, revision: 2 },
    waitingFor,
    phase,
  };
}

/** What reached the inner reporter, as "<name> <ready>/4" for progress and the kind for the rest. */
function seen(inner: RecordingReporter): string[] {
  return inner.events.map((event) =>
    event.kind === 'progress' ? `${event.workload.name} ${event.progress.ready}/4` : event.kind,
  );
}

/** Lets the throttle's timer callbacks run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('ProgressThrottle', () => {
  it('prints a crash loop flapping 0→1→2→0 every 200 ms as one line per 5 s, the first at once, the verdict always', async () => {
    const clock = new ManualClock();
    const inner = new RecordingReporter();
    const throttle = new ProgressThrottle(inner, clock);
    // 4.4 s of a crash loop, as kguard saw it in the simulator: 23 changes.
    for (let step = 0; step < 23; step += 1) {
      throttle.emit(progress(step % 3));
      clock.advance(200);
      await settle();
    }
    expect(seen(inner)).toEqual(['web 0/4']);
    clock.advance(PROGRESS_INTERVAL_MS - 23 * 200);
    await settle();
    // The interval ended: the latest change is printed (22 % 3 = 1).
    expect(seen(inner)).toEqual(['web 0/4', 'web 1/4']);
    throttle.emit({
      kind: 'failed',
      workload: web,
      elapsedMs: 4400,
      diagnosis: {
        summary: 'new pods cannot stay running (crash loop): CrashLoopBackOff',
        evidence: [],
        nextStep: 'x',
      },
    });
    expect(seen(inner)).toEqual(['web 0/4', 'web 1/4', 'failed']);
  });

  it('drops a held line when the verdict comes first, so nothing is printed after it', async () => {
    const clock = new ManualClock();
    const inner = new RecordingReporter();
    const throttle = new ProgressThrottle(inner, clock);
    throttle.emit(progress(0));
    clock.advance(1000);
    throttle.emit(progress(1));
    throttle.emit({
      kind: 'healthy',
      workload: web,
      progress: { desired: 4, updated: 4, ready: 4, available: 4 },
      elapsedMs: 1200,
    });
    clock.advance(10_000);
    await settle();
    expect(seen(inner)).toEqual(['web 0/4', 'healthy']);
    expect(clock.sleeping).toBe(0);
  });

  it('prints nothing when the text comes back to the line already printed, and a change after 5 s at once', async () => {
    const clock = new ManualClock();
    const inner = new RecordingReporter();
    const throttle = new ProgressThrottle(inner, clock);
    throttle.emit(progress(0));
    clock.advance(100);
    throttle.emit(progress(1));
    clock.advance(100);
    throttle.emit(progress(0));
    clock.advance(PROGRESS_INTERVAL_MS);
    await settle();
    expect(seen(inner)).toEqual(['web 0/4']);
    throttle.emit(progress(0));
    throttle.emit(progress(2));
    expect(seen(inner)).toEqual(['web 0/4', 'web 2/4']);
  });

  it('prints a new kind of wait at once, and throttles one already said (a flip between two kinds)', async () => {
    const clock = new ManualClock();
    const inner = new RecordingReporter();
    const throttle = new ProgressThrottle(inner, clock);
    const updating = '2 out of 4 new replicas have been updated';
    const minReady = 'ready pods count as available after minReadySeconds (30s)';
    throttle.emit(progress(0, web, 'rollout', updating));
    clock.advance(100);
    throttle.emit(progress(1, web, 'rollout', updating));
    clock.advance(100);
    // News: said at once, and the held count change is dropped with it.
    throttle.emit(progress(4, web, 'rollout', minReady));
    expect(inner.events.map((event) => event.kind === 'progress' && event.waitingFor)).toEqual([updating, minReady]);
    clock.advance(100);
    throttle.emit(progress(2, web, 'rollout', updating));
    clock.advance(100);
    throttle.emit(progress(4, web, 'rollout', minReady));
    clock.advance(100);
    throttle.emit(progress(3, web, 'rollout', updating));
    expect(inner.events).toHaveLength(2);
    clock.advance(PROGRESS_INTERVAL_MS);
    await settle();
    expect(seen(inner)).toEqual(['web 0/4', 'web 4/4', 'web 3/4']);
  });

  it('counts each object and each phase apart: every first line is printed at once, pod problems pass through', () => {
    const clock = new ManualClock();
    const inner = new RecordingReporter();
    const throttle = new ProgressThrottle(inner, clock);
    throttle.emit(progress(0, web));
    throttle.emit(progress(0, api));
    throttle.emit({ kind: 'note', workload: web, text: 'a node ended pod web-1', phase: 'rollout' });
    throttle.emit(progress(1, web));
    throttle.emit(progress(1, web, 'rollback'));
    expect(seen(inner)).toEqual(['web 0/4', 'api 0/4', 'note', 'web 1/4']);
    // Not "web 1/4" of the rollout: that one is held; the rollback's first line is printed.
    expect(inner.events.at(-1)).toMatchObject({ phase: 'rollback' });
  });

  it('stops its timers when the run finishes, so none keeps kguard alive', () => {
    const clock = new ManualClock();
    const throttle = new ProgressThrottle(new RecordingReporter(), clock);
    throttle.emit(progress(0));
    throttle.emit(progress(1));
    expect(clock.sleeping).toBe(1);
    throttle.emit({ kind: 'finished', outcome: 'succeeded', exitCode: 0, failedWorkloads: 0, restored: false });
    expect(clock.sleeping).toBe(0);
  });

  it('is what the CLI prints plain lines through', () => {
    const stream = new PassThrough();
    let text = '';
    stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
    const reporter = plainLines(stream, false, new ManualClock());
    for (let ready = 0; ready < 3; ready += 1) reporter.emit(progress(ready));
    expect(text.split('\n').filter(Boolean)).toEqual([
      '• deployment/web (namespace shop): 0/4 new pods ready (revision 2): 1 old replicas are pending termination',
    ]);
  });
});
