// `npm run cluster -- [--port N] [--time-scale X] [--scenario FILE]`: runs a simulated cluster in
// the foreground until SIGINT/SIGTERM, printing how to point kubectl at it.

import { parseArgs } from 'node:util';
import { startCluster } from './cluster.js';

const USAGE = 'usage: node dist/test/kube-sim/cli.js [--port N] [--time-scale X] [--scenario FILE]';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string' },
      'time-scale': { type: 'string' },
      scenario: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const port = values.port === undefined ? undefined : positiveNumber('--port', values.port);
  const timeScale =
    values['time-scale'] === undefined ? undefined : positiveNumber('--time-scale', values['time-scale']);

  // Without a scenario it behaves like the demo: an image that does not exist fails to pull, so
  // the README's own `xxxxxnginx:1.17` example fails as it would on a real cluster.
  const cluster = await startCluster({
    port,
    timeScale,
    scenario: values.scenario ?? { registry: { xxxxxnginx: 'no-repository', 'nginx:9.99': 'missing' } },
  });
  console.log(`kube-sim API server listening on ${cluster.url} (time scale ${cluster.clock.timeScale})`);
  console.log(`kubeconfig: ${cluster.kubeconfigPath}`);
  console.log(`export KUBECONFIG=${cluster.env.KUBECONFIG} KUBECACHEDIR=${cluster.env.KUBECACHEDIR}`);
  console.log(
    `faults (see test/kube-sim/README.md): kubectl create --raw /kube-sim/faults -f - <<<'{"failNext": {"status": 503, "count": 2, "match": "^PATCH"}}'`,
  );

  const shutdown = (): void => {
    cluster.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
  // It lives as long as whatever started it (npm run cluster execs it): killing the parent by
  // its PID does not leave the simulator behind.
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) shutdown();
  }, 500);
}

function positiveNumber(flag: string, text: string): number {
  const value = Number(text);
  if (!(value > 0)) {
    console.error(`${flag}: expected a positive number, got ${JSON.stringify(text)}\n${USAGE}`);
    process.exit(2);
  }
  return value;
}

main().catch((error: unknown) => {
  console.error(`kube-sim: ${(error as Error).message}`);
  process.exit(1);
});
