import { describe, expect, it } from 'vitest';
import { secondSignalMessage, signalMeaning } from '../../src/cli/interrupt.js';

describe('secondSignalMessage', () => {
  it('names the objects a cut-short restore did not put back', () => {
    expect(secondSignalMessage('SIGTERM', ['deployment/web (namespace shop)'], 130)).toBe(
      'SIGTERM again: exiting at once (exit 130); the restore was NOT finished; these objects may still be as the apply left them:\n  deployment/web (namespace shop)',
    );
  });

  it('says the restore was not finished when it knows of nothing left', () => {
    expect(secondSignalMessage('SIGINT', [], 130)).toBe(
      'SIGINT again: exiting at once (exit 130); the restore was NOT finished.',
    );
  });
});

describe('signalMeaning', () => {
  it('cancels at the first signal, whichever it is', () => {
    expect(signalMeaning([], 'SIGINT')).toBe('cancel');
    expect(signalMeaning([], 'SIGTERM')).toBe('cancel');
  });

  it("takes GitHub Actions' SIGTERM 7.5 s after its SIGINT as the same cancellation", () => {
    expect(signalMeaning(['SIGINT'], 'SIGTERM')).toBe('same-cancellation');
  });

  it('exits at once on SIGINT twice, SIGTERM twice, SIGINT after SIGTERM, or anything after the SIGINT-SIGTERM pair', () => {
    expect(signalMeaning(['SIGINT'], 'SIGINT')).toBe('exit-now');
    expect(signalMeaning(['SIGTERM'], 'SIGTERM')).toBe('exit-now');
    expect(signalMeaning(['SIGTERM'], 'SIGINT')).toBe('exit-now');
    expect(signalMeaning(['SIGINT', 'SIGTERM'], 'SIGINT')).toBe('exit-now');
    expect(signalMeaning(['SIGINT', 'SIGTERM'], 'SIGTERM')).toBe('exit-now');
  });
});
