import { describe, expect, it } from 'vitest';
import { secondSignalMessage } from '../../src/cli/interrupt.js';

describe('secondSignalMessage', () => {
  it('names the objects a cut-short restore did not put back', () => {
    expect(secondSignalMessage('SIGTERM', ['deployment/web (namespace shop)'], 130)).toBe(
      'SIGTERM again: exiting at once (exit 130); the restore was NOT finished; these objects may still be as the apply left them:\n  deployment/web (namespace shop)',
    );
  });

  it('says the restore was not finished when it knows of nothing left', () => {
    expect(secondSignalMessage('SIGINT', [], 130)).toBe('SIGINT again: exiting at once (exit 130); the restore was NOT finished.');
  });
});
