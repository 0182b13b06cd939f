// The line that says why kguard stopped watching a rollout still in progress: the true cause.
import { describe, expect, it } from 'vitest';
import { formatEvent } from '../../../src/report/format/format.js';

const workload = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'shop', name: 'web' };
const progress = { desired: 3, updated: 1, ready: 1, available: 1 };

/** The line of web's interrupted watch, at 1/3 new pods, for `cause` (and its reason, restoring). */
function interrupted(
  why: { cause: 'cancelled'; reason: string; restoring: boolean } | { cause: 'another-failed' },
): string {
  return formatEvent({ kind: 'interrupted', workload, progress, waitingFor: 'waiting for 2 more new pods', ...why })
    .text;
}

describe('the interrupted line', () => {
  it('names the signal and the restore when the run was cancelled, not a failure of another workload', () => {
    expect(interrupted({ cause: 'cancelled', reason: 'interrupted by SIGINT', restoring: true })).toBe(
      'deployment/web (namespace shop): stopped watching at 1/3 new pods ready (waiting for 2 more new pods): ' +
        'interrupted by SIGINT; restoring what this apply changed',
    );
  });

  it('says the apply stays as applied when a cancelled run does not restore (--rollback none)', () => {
    expect(
      interrupted({ cause: 'cancelled', reason: 'stopped by kguard rollback (alice@laptop)', restoring: false }),
    ).toMatch(
      /: stopped by kguard rollback \(alice@laptop\); what this apply changed stays as applied \(--rollback none\)$/,
    );
  });

  it('blames another workload only when another workload failed', () => {
    expect(interrupted({ cause: 'another-failed' })).toBe(
      'deployment/web (namespace shop): stopped watching at 1/3 new pods ready (waiting for 2 more new pods) because another workload of this apply failed',
    );
  });
});
