import { describe, expect, it } from 'vitest';
import { parseApplyOutput } from '../../src/kubectl/output/apply-output.js';

describe('parseApplyOutput', () => {
  it('reads each object line kubectl apply prints', () => {
    const stdout = 'deployment.apps/web configured\nservice/web unchanged\nconfigmap/web created\n';
    expect(parseApplyOutput(stdout)).toEqual([
      { resource: 'deployment.apps', name: 'web', action: 'configured' },
      { resource: 'service', name: 'web', action: 'unchanged' },
      { resource: 'configmap', name: 'web', action: 'created' },
    ]);
  });

  it('reads server-side and dry-run lines', () => {
    expect(
      parseApplyOutput('deployment.apps/web serverside-applied\nservice/web unchanged (server dry run)\n'),
    ).toEqual([
      { resource: 'deployment.apps', name: 'web', action: 'serverside-applied' },
      { resource: 'service', name: 'web', action: 'unchanged' },
    ]);
  });

  it('skips warnings and anything else', () => {
    expect(parseApplyOutput('Warning: resource deployments/web is missing the annotation\n')).toEqual([]);
  });
});
