import { describe, expect, it } from 'vitest';
import { interruptMessage, type RunProgress } from '../../src/cli/interrupt.js';
import type { RunEventKind } from '../../src/report/events.js';

const web = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'shop' };

function progress(seen: RunEventKind[], extra: Partial<RunProgress> = {}): RunProgress {
  return { seen: new Set(seen), applyStarted: false, inFlight: [], commandLine: (args) => ['kubectl', ...args].join(' '), ...extra };
}

describe('interruptMessage', () => {
  it('says nothing was applied before the apply started', () => {
    expect(interruptMessage('SIGINT', undefined)).toBe('interrupted by SIGINT before the apply; nothing was applied.');
    expect(interruptMessage('SIGTERM', progress(['understood']))).toMatch(/before the apply; nothing was applied/);
  });

  it('says the apply may have changed objects when it was running', () => {
    expect(interruptMessage('SIGTERM', progress(['understood'], { applyStarted: true }))).toMatch(/while kubectl apply ran.*may have changed/);
  });

  it('gives the undo command of every rollout in flight after the apply', () => {
    const message = interruptMessage('SIGTERM', progress(['understood', 'applied', 'changes', 'tracking'], { applyStarted: true, inFlight: [{ workload: web, fromRevision: 4 }] }));
    expect(message).toContain('NOT checked or rolled back');
    expect(message).toContain('kubectl rollout undo deployment.apps/web -n shop --to-revision=4');
  });

  it('says what the apply left in place when nothing was being watched yet', () => {
    expect(interruptMessage('SIGTERM', progress(['applied', 'changes'], { applyStarted: true }))).toMatch(/after the apply; what it changed is in place/);
  });

  it('says a restore was cut short', () => {
    expect(interruptMessage('SIGINT', progress(['changes', 'restoring'], { applyStarted: true }))).toMatch(/while restoring/);
  });
});
