// A Job the TTL-after-finished controller deleted once it completed ended well; a Job that went
// before it completed (or has no TTL) was deleted by someone else. On fixtures shaped as the API
// returns them (jobs/complete.json, events/job-completed.json).
import { describe, expect, it } from 'vitest';
import { completedThenDeleted } from '../../src/kinds/workloads/job.js';
import type { Job } from '../../src/kube.js';
import { events, fixture } from '../fixtures/load.js';

const complete = fixture<Job>('jobs/complete');
const running = fixture<Job>('jobs/running');
const withTtl = (job: Job, seconds: number): Job => ({
  ...job,
  spec: { ...job.spec, ttlSecondsAfterFinished: seconds },
});

describe('completedThenDeleted', () => {
  it('is a success when the last look saw it Complete', () => {
    expect(completedThenDeleted(withTtl(running, 30), withTtl(complete, 30), [])).toBe(
      'completed, then deleted by the TTL-after-finished controller (ttlSecondsAfterFinished: 30)',
    );
  });

  it("is a success when it went between two looks but the job controller's Completed event names its uid", () => {
    expect(completedThenDeleted(withTtl(running, 0), withTtl(running, 0), events('job-completed'))).toMatch(
      /^completed, then deleted/,
    );
  });

  it("is someone else's delete without the TTL, before it completed, or when the event is about another Job of that name", () => {
    expect(completedThenDeleted(running, complete, events('job-completed'))).toBeUndefined();
    expect(completedThenDeleted(withTtl(running, 0), withTtl(running, 0), [])).toBeUndefined();
    const other = events('job-completed').map((event) => ({
      ...event,
      involvedObject: { ...event.involvedObject, uid: '00000000-0000-4000-8000-000000000000' },
    }));
    expect(completedThenDeleted(withTtl(running, 0), undefined, other)).toBeUndefined();
  });
});
