// `npm run cluster:real -- --kubeconfig PATH [--real-nodes N] [--scenario FILE] [--port N] [--max-minutes M]`
// (or `-- --build-only`):
// builds the control plane if its pins changed, runs it in the foreground, writes the admin's
// kubeconfig to PATH once everything answers (with --real-nodes N: N real nodes, no kwok, and a
// line `registry: HOST:PORT` naming the plain-HTTP registry the nodes pull from), and stops every process it started on
// SIGINT/SIGTERM, at the deadline, or (through the watchdog) when this process dies.

import { copyFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { ensureBinaries } from './build.js';
import { startRealCluster } from './cluster.js';

const USAGE =
  'usage: npm run cluster:real -- --kubeconfig PATH [--real-nodes N] [--scenario FILE] [--port N] [--max-minutes M]\n       npm run cluster:real -- --build-only';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      kubeconfig: { type: 'string' },
      scenario: { type: 'string' },
      port: { type: 'string' },
      'max-minutes': { type: 'string' },
      'real-nodes': { type: 'string' },
      'build-only': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return void console.log(USAGE);
  if (values['build-only']) {
    // CI builds (or finds) the binaries first, so the suite's start-up is only the start-up.
    const build = await ensureBinaries((line) => console.log(line));
    console.log(`${build.reused ? 'reused' : 'built'} ${build.bin} in ${(build.ms / 1000).toFixed(1)} s`);
    return;
  }
  if (!values.kubeconfig) return usage('--kubeconfig PATH is required');
  const port = values.port === undefined ? undefined : Number(values.port);
  if (port !== undefined && !(Number.isInteger(port) && port > 0 && port < 65530))
    return usage(`--port: expected a port number, got ${JSON.stringify(values.port)}`);
  const maxMinutes = Number(values['max-minutes'] ?? '240');
  if (!(maxMinutes > 0))
    return usage(`--max-minutes: expected a positive number, got ${JSON.stringify(values['max-minutes'])}`);

  const realNodes = values['real-nodes'] === undefined ? 0 : Number(values['real-nodes']);
  if (!(Number.isInteger(realNodes) && realNodes >= 0 && realNodes <= 8))
    return usage(`--real-nodes: expected a count from 0 to 8, got ${JSON.stringify(values['real-nodes'])}`);

  const started = Date.now();
  const cluster = await startRealCluster({
    // Without a scenario it behaves like kube-sim's demo: these two images fail to pull.
    scenario: values.scenario ?? { registry: { xxxxxnginx: 'no-repository', 'nginx:9.99': 'missing' } },
    port,
    deadlineMs: maxMinutes * 60_000,
    log: (line) => console.log(line),
    // Real nodes only: every pod is real (a kwok node would take some of them).
    realNodes,
    kwok: realNodes === 0,
  });
  await copyFile(cluster.kubeconfig, values.kubeconfig);
  console.log(`control plane ready in ${((Date.now() - started) / 1000).toFixed(1)} s at ${cluster.server}`);
  for (const process of cluster.processes) console.log(`  ${process.name}: PID ${process.pid}, log ${process.logFile}`);
  console.log(`restricted user's kubeconfig: ${cluster.restrictedKubeconfig}`);
  if (cluster.registry) {
    // Plain HTTP, no auth: push with `skopeo copy --dest-tls-verify=false … docker://HOST:PORT/NAME:TAG`.
    console.log(`registry: ${cluster.registry}`);
    console.log(`  images: ${cluster.registry}/kguard/testapp:1 (and :2), sandbox ${cluster.registry}/kguard/pause:1`);
    for (const node of cluster.realNodes)
      console.log(
        `  ${node.name}: cgroup /${node.cgroupRoot}, bridge ${node.bridge} (${node.subnet}), kubelet :${node.kubeletPort}`,
      );
  }
  console.log(`export KUBECONFIG=${values.kubeconfig}`);

  let stopping = false;
  const shutdown = (why: string): void => {
    if (stopping) return;
    stopping = true;
    console.log(`${why}: stopping ${cluster.processes.map((p) => `${p.name} (${p.pid})`).join(', ')}`);
    cluster.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', () => shutdown('SIGINT'));
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  setTimeout(() => shutdown(`--max-minutes ${maxMinutes} passed`), maxMinutes * 60_000).unref();
  // A component that dies leaves no usable cluster: stop the rest and say which one.
  const watch = setInterval(() => {
    const dead = cluster.processes.find((p) => p.exit);
    if (dead) shutdown(`${dead.name} exited (${dead.exit?.code ?? dead.exit?.signal}), see ${dead.logFile}`);
  }, 1_000);
  void watch;
}

function usage(message: string): void {
  console.error(`${message}\n${USAGE}`);
  process.exitCode = 2;
}

main().catch((error: unknown) => {
  console.error(`cluster:real: ${(error as Error).message}`);
  process.exit(1);
});
