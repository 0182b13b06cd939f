// `npm run cluster` (test/kube-sim/cli.ts) as a person runs it: its documented faults do not end it.
import { execa } from 'execa';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { eventually } from '../e2e/harness.js';

const CLI = fileURLToPath(new URL('../../dist/test/kube-sim/cli.js', import.meta.url));

describe('npm run cluster', () => {
  it('outlives the unreachable fault and serves again when it ends (its state kept)', async () => {
    const simulator = execa('node', [CLI, '--time-scale', '10'], { reject: false, buffer: true });
    let printed = '';
    simulator.stdout?.on('data', (chunk: Buffer) => (printed += chunk.toString()));
    try {
      const exports = await eventually(
        () => /^export KUBECONFIG=(\S+) KUBECACHEDIR=(\S+)$/m.exec(printed) ?? undefined,
      );
      const env = { ...process.env, KUBECONFIG: exports[1]!, KUBECACHEDIR: exports[2]! };
      const kubectl = (args: string[], input?: string) => execa('kubectl', args, { env, input, reject: false });
      expect((await kubectl(['create', 'configmap', 'kept', '--from-literal=a=1'])).exitCode).toBe(0);
      const fault = await kubectl(['create', '--raw', '/kube-sim/faults', '-f', '-'], '{"unreachable": {"ms": 1500}}');
      expect(fault.exitCode, fault.stderr).toBe(0);
      // Away first (connection refused), then back, with what it held before.
      await eventually(async () => ((await kubectl(['get', '--raw', '/version'])).exitCode !== 0 ? true : undefined));
      const back = await eventually(async () => {
        const read = await kubectl(['get', 'configmap', 'kept', '-o', 'jsonpath={.data.a}']);
        return read.exitCode === 0 ? read.stdout : undefined;
      });
      expect(back).toBe('1');
      expect(simulator.exitCode).toBeNull();
    } finally {
      simulator.kill('SIGTERM');
      await simulator;
    }
  });
});
