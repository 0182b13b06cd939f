// The action's fleet inputs → kguard's command line (the runner's INPUT_* variables, hyphens kept).
import { describe, expect, it } from 'vitest';
import { kguardArgs, readInputs } from '../../src/action/inputs.js';

const files = { junit: '/tmp/junit.xml' };

describe('the fleet inputs', () => {
  it('passes contexts (one per line, by commas or spaces), canary and fleet-rollback as the fleet flags', () => {
    const inputs = readInputs({
      INPUT_FILES: 'web.yaml',
      INPUT_CONTEXTS: 'eu-1\nus-1, ap-1',
      INPUT_CANARY: 'staging',
      'INPUT_FLEET-ROLLBACK': 'failed',
    });
    expect(kguardArgs(inputs, files)).toEqual([
      'apply',
      '-f',
      'web.yaml',
      '--contexts',
      'eu-1,us-1,ap-1',
      '--canary',
      'staging',
      '--fleet-rollback',
      'failed',
      '--junit',
      '/tmp/junit.xml',
      '--output',
      'json',
    ]);
  });

  it('passes a fleet file; the default fleet-rollback of a single-cluster apply says nothing', () => {
    expect(
      kguardArgs(
        readInputs({ INPUT_FILES: 'web.yaml', INPUT_FLEET: 'fleet.yaml', 'INPUT_FLEET-ROLLBACK': 'all' }),
        files,
      ),
    ).toEqual([
      'apply',
      '-f',
      'web.yaml',
      '--fleet',
      'fleet.yaml',
      '--fleet-rollback',
      'all',
      '--junit',
      '/tmp/junit.xml',
      '--output',
      'json',
    ]);
    expect(kguardArgs(readInputs({ INPUT_FILES: 'web.yaml', 'INPUT_FLEET-ROLLBACK': 'all' }), files)).toEqual([
      'apply',
      '-f',
      'web.yaml',
      '--junit',
      '/tmp/junit.xml',
      '--output',
      'json',
    ]);
  });
});
