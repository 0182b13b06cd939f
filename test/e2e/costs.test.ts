// What a run costs the cluster, counted (deterministic): kubectl processes and API requests. An
// apply that changes nothing starts two kubectl processes: the server dry run and, beside it, the
// API channel's proxy, through which the live copies are read by name and the look for a dead
// run's journal and Leases on its objects is made (a CI retry after a kill finishes that run before
// it trusts the cluster, #29); no `config view`, no client dry run, no `get -f`. A change adds the
// apply alone, and reads each object by name, never its whole namespace, before and after it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deploymentYaml } from '../kube-sim/testing/kubectl.js';
import { counted, mostListed } from './counted.js';
import { KGUARD, sandbox, type Sandbox } from './harness.js';

let box: Sandbox;
beforeAll(async () => {
  box = await sandbox();
  await box.deployHealthy('web');
}, 120_000);
afterAll(async () => box?.stop());

describe('what one apply costs the cluster', () => {
  it('an apply that changes nothing: 2 kubectl processes (the server dry run and the proxy), at most 12 requests', async () => {
    const file = await box.write('web.yaml', deploymentYaml('web', 'nginx:1.25'));
    const run = await counted(box.cluster, KGUARD, ['apply', '-f', file]);
    expect(run.exitCode, run.stdout).toBe(0);
    expect(run.commands.map((command) => command.replace(/^(--\S+ )+/, '').split(' ')[0]).sort()).toEqual([
      'apply',
      'proxy',
    ]);
    expect(run.processes, run.commands.join('\n')).toBe(2);
    expect(run.commands.some((command) => / config view /.test(` ${command} `))).toBe(false);
    expect(run.requests, run.log.join('\n')).toBeLessThanOrEqual(12);
    expect(run.lists.size).toBe(0);
  });

  it('the server dry run starts as the command line is read, and the run takes its answer: one dry run', async () => {
    const file = await box.write('web.yaml', deploymentYaml('web', 'nginx:1.25'));
    const run = await counted(box.cluster, KGUARD, ['apply', '-f', file, '-v']);
    expect(run.exitCode, run.stdout).toBe(0);
    expect(run.commands.filter((command) => / apply /.test(` ${command} `))).toHaveLength(1);
    expect(run.stdout).toMatch(
      / apply -f \S+ --openapi-patch=false --dry-run=server -o json --request-timeout=\S+ \(exit 0, started before the run; waited /,
    );
  });

  it('a healthy change of one Deployment: 3 kubectl processes, no whole namespace of its kind listed, at most 35 requests', async () => {
    const file = await box.write('web.yaml', deploymentYaml('web', 'nginx:1.26'));
    const run = await counted(box.cluster, KGUARD, ['apply', '-f', file, '--poll-interval', '300ms']);
    expect(run.exitCode, run.stdout).toBe(0);
    // The server dry run, the proxy, the apply: the history names the inputs by their bytes, no client dry run.
    expect(
      run.commands.map(
        (command) =>
          command
            .replace(/^(--\S+ )+/, '')
            .split(' ')
            .slice(0, 1)[0],
      ),
    ).toEqual(['apply', 'proxy', 'apply']);
    expect(run.commands.filter((command) => /--dry-run=/.test(command))).toHaveLength(1);
    expect(run.lists.get('/apis/apps/v1/namespaces/default/deployments'), run.log.join('\n')).toBeUndefined();
    expect(mostListed(run)).toBeLessThanOrEqual(2);
    expect(run.requests, run.log.join('\n')).toBeLessThanOrEqual(35);
  });
});
