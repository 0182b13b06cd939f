import { describe, expect, it } from 'vitest';
import { promDuration, renderQuery, unknownVariables } from '../../src/analysis/template.js';

const facts = { runId: 'kguard-abc', namespace: 'shop', workloads: ['web', 'api.v2'], appliedAt: 1_800_000_000_000 };

describe('renderQuery', () => {
  it('fills in the run facts: namespace, workloads as one regex, interval, the time since the apply, the apply time', () => {
    expect(
      renderQuery(
        'rate(x{namespace="{{namespace}}", deployment=~"{{ workloads }}", first="{{ workload }}"}[{{ interval }}]) @ {{ appliedAt }} # {{ since }} {{ runId }}',
        facts,
        30_000,
        facts.appliedAt + 95_400,
      ),
    ).toBe('rate(x{namespace="shop", deployment=~"web|api\\\\.v2", first="web"}[30s]) @ 1800000000 # 95s kguard-abc');
  });

  it('never writes a zero-length window: {{ since }} is at least 1s', () => {
    expect(renderQuery('[{{ since }}]', facts, 1000, facts.appliedAt)).toBe('[1s]');
    expect(promDuration(400)).toBe('1s');
  });

  it('names the variables it does not know, once each', () => {
    expect(unknownVariables('{{ namespace }} {{ args.name }} {{args.name}} {{ target }}')).toEqual([
      'args.name',
      'target',
    ]);
  });
});
