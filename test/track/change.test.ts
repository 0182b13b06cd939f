import { describe, expect, it } from 'vitest';
import { detectChange, recordBefore } from '../../src/track/change.js';
import { deployment, replicaSet } from '../fixtures/load.js';

describe('recordBefore', () => {
  it('records revision, generation and the live template hash', () => {
    const before = recordBefore(deployment('complete'), [replicaSet('complete-old'), replicaSet('complete-new')]);
    expect(before).toMatchObject({ exists: true, revision: 7, generation: 12, templateHash: '7d9c6b8f4d' });
  });

  it('records that a Deployment does not exist yet', () => {
    expect(recordBefore(undefined, [])).toEqual({ exists: false, images: [] });
  });
});

describe('detectChange', () => {
  const before = recordBefore(deployment('complete'), []);

  it('sees a new generation as a change by this apply', () => {
    const after = deployment('complete');
    after.metadata.generation = 13;
    expect(detectChange(before, after)).toEqual({ changed: true, how: 'updated', detail: 'generation 12 → 13' });
  });

  it('sees the same generation as unchanged, whatever kubectl printed', () => {
    expect(detectChange(before, deployment('complete'))).toMatchObject({ changed: false });
  });

  it('sees a Deployment that did not exist before as created', () => {
    expect(detectChange({ exists: false, images: [] }, deployment('complete'))).toMatchObject({ changed: true, how: 'created' });
  });
});
