import { describe, expect, it } from 'vitest';
import { expectShippedSchema, refusalOf } from '../input-files.js';
import { DEFAULTS } from '../../src/model/options.js';
import { resolveApplyOptions } from '../../src/api/options.js';
import { parseFleetFile } from '../../src/run/fleet/fleet-file.js';
import { FLEET_SCHEMA } from '../../src/run/fleet/fleet-schema.js';
import { clusterOptions } from '../../src/run/fleet/fleet.js';

const refusal = (text: string): string => refusalOf(() => parseFleetFile(text, 'fleet.yaml'));

describe('parseFleetFile', () => {
  it('the shipped schema file is the one kguard validates with', () => {
    expectShippedSchema('fleet.schema.json', FLEET_SCHEMA);
  });

  it("reads the issue's example: waves in order, a wave's parallel and bake", () => {
    expect(
      parseFleetFile('waves: [{contexts: [staging]}, {contexts: [eu-1, us-1], parallel: 2, bake: 5m}]', 'fleet.yaml'),
    ).toEqual({
      waves: [{ contexts: ['staging'] }, { contexts: ['eu-1', 'us-1'], parallel: 2, bakeMs: 300_000 }],
      overrides: {},
      source: 'fleet.yaml',
    });
  });

  it("takes a context's overrides: namespace, kubeconfig, kubectl flags", () => {
    const yaml = [
      'waves:',
      '  - contexts:',
      '      - staging',
      '      - context: eu-1',
      '        namespace: shop',
      '        kubeconfig: /etc/kube/eu.yaml',
      '        kubectlArgs: ["--as=deployer", "--prune=false"]',
    ].join('\n');
    expect(parseFleetFile(yaml, 'fleet.yaml').overrides).toEqual({
      'eu-1': { namespace: 'shop', kubeconfig: '/etc/kube/eu.yaml', kubectlArgs: ['--as=deployer', '--prune=false'] },
    });
  });

  it('names the file, the path in it and what is wrong', () => {
    expect(refusal('waves: [{contexts: [staging], parallel: 0}]')).toBe(
      '--fleet fleet.yaml does not follow schema/fleet.schema.json: /waves/0/parallel must be >= 1.',
    );
    expect(refusal('waves: [{contexts: [staging], bake: soon}]')).toMatch(
      /^--fleet fleet.yaml does not follow schema\/fleet.schema.json: \/waves\/0\/bake is not a duration/,
    );
    expect(refusal('waves: [{contexts: [staging], wait: 5m}]')).toMatch(/\/waves\/0 has an unknown field "wait"/);
    expect(refusal('waves: []')).toMatch(/\/waves must NOT have fewer than 1 items/);
    expect(refusal('stages: []')).toMatch(/the file must have required property 'waves'/);
    expect(refusal('waves: [{contexts: [{context: eu-1, namespace: Shop}]}]')).toMatch(
      /\/waves\/0\/contexts\/0\/namespace must match pattern/,
    );
  });

  it('refuses a context named twice, and text that is not YAML', () => {
    expect(refusal('waves: [{contexts: [staging]}, {contexts: [eu-1, staging]}]')).toBe(
      '--fleet fleet.yaml: /waves/1/contexts/1 names context staging again (first at /waves/0/contexts/0); give each context once.',
    );
    expect(refusal('waves: [{contexts: [staging]')).toMatch(/^--fleet fleet.yaml: not YAML or JSON/);
  });
});

describe('clusterOptions', () => {
  const options = resolveApplyOptions({
    filenames: ['web.yaml'],
    kubeconfig: '/home/me/.kube/config',
    kubectlArgs: ['--as=ci'],
    bakeMs: 1000,
  });
  const fleet = { runId: 'fleet-1', contexts: ['staging', 'eu-1'] };

  it("pins the context, journals the fleet run, keeps the healthy journal and takes the wave's bake", () => {
    const cluster = clusterOptions(
      options,
      'staging',
      { contexts: ['staging'], bakeMs: 5000 },
      { rollback: 'all' },
      fleet,
    );
    expect(cluster.connectionArgs).toEqual(['--kubeconfig=/home/me/.kube/config', '--as=ci', '--context=staging']);
    expect(cluster).toMatchObject({ bakeMs: 5000, keepJournal: true, fleet, rollback: DEFAULTS.rollback });
    expect(clusterOptions(options, 'staging', { contexts: ['staging'] }, { rollback: 'none' }, fleet)).toMatchObject({
      bakeMs: 1000,
      rollback: 'none',
    });
  });

  it("puts a context's overrides over the command line's: its namespace, kubeconfig and flags", () => {
    const overrides = {
      'eu-1': { namespace: 'shop', kubeconfig: '/etc/kube/eu.yaml', kubectlArgs: ['--as=deployer', '--prune=false'] },
    };
    const cluster = clusterOptions(options, 'eu-1', { contexts: ['eu-1'] }, { rollback: 'all', overrides }, fleet);
    expect(cluster.namespace).toBe('shop');
    expect(cluster.connectionArgs).toEqual(['--kubeconfig=/etc/kube/eu.yaml', '--as=deployer', '--context=eu-1']);
    expect(cluster.applyArgs).toEqual(['--prune=false']);
  });
});
