// What a run's leases cost: `node dist/test/bench/leases.js [--objects 100,500] [--kguard PATH]`.
// For an apply of N new ConfigMaps in one namespace: the kubectl processes of the run (its JSON
// report, and a wrapper that logs every kubectl it starts, to count those about Leases), the
// Leases it created, and the Leases left once it exited (0 is the target). KEEP_LOG=1 prints every
// kubectl command line of the run.
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { execa } from 'execa';
import { startCluster } from '../kube-sim/cluster.js';

const { values: flags } = parseArgs({ options: { kguard: { type: 'string' }, objects: { type: 'string' } } });
const kguard = flags.kguard ?? fileURLToPath(new URL('../../../bin/kguard', import.meta.url));
const sizes = (flags.objects ?? '100,500').split(',').map(Number);

function configMaps(count: number): string {
  return Array.from(
    { length: count },
    (_, index) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings-${index}\ndata:\n  level: info\n`,
  ).join('---\n');
}

async function measure(count: number): Promise<string> {
  const cluster = await startCluster({ timeScale: 50, controllers: false });
  const dir = await mkdtemp(join(tmpdir(), 'kguard-bench-leases-'));
  try {
    const log = join(dir, 'kubectl.log');
    const wrapper = join(dir, 'kubectl');
    await writeFile(wrapper, `#!/bin/sh\nprintf '%s\\n' "$*" >> '${log}'\nexec kubectl "$@"\n`);
    await chmod(wrapper, 0o755);
    await writeFile(join(dir, 'apps.yaml'), configMaps(count));
    let created = 0;
    cluster.store.subscribe((event) => {
      if (event.object.kind === 'Lease' && event.type === 'ADDED') created += 1;
    });
    const began = performance.now();
    const run = await execa(kguard, ['apply', '-f', join(dir, 'apps.yaml'), '-o', 'json'], {
      env: { ...process.env, ...cluster.env, CI: 'true', NO_COLOR: '1', KGUARD_KUBECTL: wrapper },
      reject: false,
    });
    const wallMs = performance.now() - began;
    if (run.exitCode !== 0) throw new Error(`kguard exited ${run.exitCode}:\n${run.stderr.slice(-3000)}`);
    const report = JSON.parse(run.stdout) as { kubectlProcesses: number };
    const calls = (await readFile(log, 'utf8')).split('\n').filter(Boolean);
    const aboutLeases = calls.filter((call) => /coordination\.k8s\.io/.test(call)).length;
    const left = cluster.store.list('Lease').length;
    return `${count} ConfigMaps: ${calls.length} kubectl processes (report says ${report.kubectlProcesses}), ${aboutLeases} about Leases; ${created} Leases created, ${left} left; ${(wallMs / 1000).toFixed(1)} s`;
  } finally {
    await cluster.stop();
    if (process.env.KEEP_LOG)
      console.log(
        (await readFile(join(dir, 'kubectl.log'), 'utf8'))
          .split('\n')
          .map((line) => line.slice(0, 160))
          .join('\n'),
      );
    await rm(dir, { recursive: true, force: true });
  }
}

for (const count of sizes) console.log(await measure(count));
