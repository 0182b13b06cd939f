// Three CI retries at once after a kill -9, 10 times, on a real API server (#45): whether exactly
// one of several conditional writes (PUT with a resourceVersion) gets through is the API server's
// answer, so this is asked of the real one. One retry finishes the dead run; the others wait for
// it, and none takes its writes for someone else's change (before: 1 in 3 tries exited 4).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectOneRecovery } from '../e2e/retries.js';
import { deploymentYaml } from '../kube-sim/testing/kubectl.js';
import { eventually, imageOf, realSandbox, type RealSandbox } from './harness.js';

let env: RealSandbox;
beforeAll(async () => {
  env = await realSandbox('real-retries');
});
afterAll(async () => {
  await env?.stop();
});

/** A Deployment whose new pods never pass readiness (a kwok stage): a watch that lasts. */
const neverReady = (name: string) =>
  deploymentYaml(name, 'nginx:1.26').replace(
    '    metadata:\n      labels:',
    '    metadata:\n      annotations:\n        sim.kguard.dev/readiness: fail\n      labels:',
  );

const short = ['--timeout', '90s', '--poll-interval', '1s', '--request-timeout', '5s'];

describe('three retries at once after a kill -9 (10 times)', () => {
  it('each ends as its own apply deserves: one finishes the dead run, all exit 0, none says a person is needed', async () => {
    const v1 = await env.write('v1.yaml', deploymentYaml('web', 'nginx:1.25'));
    expect((await env.kguard(['apply', '-f', v1, '-n', env.namespace, ...short])).exitCode).toBe(0);
    const stuck = await env.write('stuck.yaml', neverReady('web'));
    for (let round = 0; round < 10; round++) {
      const dying = env.kguardProcess(['apply', '-f', stuck, '-n', env.namespace, ...short], {
        killWhen: (output) => /\d\/2 new pods ready/.test(output),
      });
      await dying.done;
      expect(imageOf(await env.get('deployment', 'web'))).toBe('nginx:1.26');
      const image = round % 2 === 0 ? 'nginx:1.27' : 'nginx:1.28';
      const next = await env.write(`next-${round}.yaml`, deploymentYaml('web', image));
      const retries = await Promise.all(
        [0, 1, 2].map(() =>
          env.kguard(['apply', '-f', next, '-n', env.namespace, ...short, '--lock-timeout', '150s'], {
            timeoutMs: 300_000,
          }),
        ),
      );
      const story = expectOneRecovery(retries, round);
      expect(imageOf(await env.get('deployment', 'web'))).toBe(image);
      const journals = await env.kubectl([
        'get',
        'secrets',
        '-n',
        env.namespace,
        '-l',
        'kguard.dev/journal=v1',
        '-o',
        'name',
      ]);
      expect(journals.stdout.trim(), story).toBe('');
      await eventually(async () =>
        (await env.get('deployment', 'web'))?.status?.readyReplicas === 2 ? true : undefined,
      );
    }
  }, 1_800_000);
});
