// Once every phase is applied, the dry run's answer and the copies read beside it are let go
// before the watch (run/apply/after-write.ts); the guard's pre-apply copies are never touched.
import { describe, expect, it } from 'vitest';
import { forgetTheDryRun } from '../../src/run/apply/after-write.js';
import type { Understood } from '../../src/run/apply/understand.js';
import type { KubeObject } from '../../src/objects/model.js';
import { deployment } from '../fixtures/load.js';

const web = deployment('complete') as unknown as KubeObject;
const ref = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'shop', name: 'web' };

function understood(): Understood {
  return {
    refs: [ref],
    pruned: [],
    server: { ok: true, objects: [web], pruned: [web], warnings: 'a warning' },
    current: new Map([['apps/Deployment/shop/web', web]]),
  };
}

describe('forgetTheDryRun', () => {
  it('lets go of every part’s dry-run answer and live copies, and keeps their refs and warnings', () => {
    const whole = understood();
    const part = understood();
    const guardCopies = whole.current;
    forgetTheDryRun([{ understood: part }, {}], whole);
    for (const held of [whole, part]) {
      expect(held.current.size).toBe(0);
      expect(held.server).toEqual({ ok: true, objects: [], pruned: [], warnings: 'a warning' });
      expect(held.refs).toEqual([ref]);
    }
    // Without a journal the guard's pre-apply copies are that very map: replaced, not emptied.
    expect(guardCopies.get('apps/Deployment/shop/web')).toBe(web);
  });

  it('keeps a refusal as it was', () => {
    const refused: Understood = { ...understood(), server: { ok: false, stderr: 'forbidden', timedOut: false } };
    forgetTheDryRun([], refused);
    expect(refused.server).toEqual({ ok: false, stderr: 'forbidden', timedOut: false });
  });
});
