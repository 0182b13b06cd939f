// The README's demo: starts the simulated cluster, then runs the real kguard (and the real kubectl)
// against it twice: a healthy rollout, then a bad image that kguard diagnoses and rolls back.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { startCluster } from '../kube-sim/cluster.js';
import { deploymentYaml } from '../kube-sim/testing/kubectl.js';
import { OFFLINE_REGISTRIES } from '../e2e/harness.js';

const kguard = fileURLToPath(new URL('../../../bin/kguard', import.meta.url));
const MISSING_IMAGE = 'xxxxxnginx:1.17';

async function main(): Promise<number> {
  const cluster = await startCluster({ timeScale: 10, scenario: { registry: { [MISSING_IMAGE]: 'no-repository' } } });
  const dir = await mkdtemp(join(tmpdir(), 'kguard-demo-'));
  // The simulator decides which images exist: kguard asks no real registry (test/e2e/harness.ts).
  const env = { ...process.env, ...cluster.env, ...OFFLINE_REGISTRIES };
  try {
    say(`simulated cluster at ${cluster.url} (time runs 10x faster); KUBECONFIG=${cluster.kubeconfigPath}`);
    const steps: Array<{ title: string; image: string; expectedExit: number }> = [
      { title: 'deploy web with nginx:1.25 (a healthy rollout)', image: 'nginx:1.25', expectedExit: 0 },
      {
        title: `deploy web with ${MISSING_IMAGE} (an image that does not exist)`,
        image: MISSING_IMAGE,
        expectedExit: 3,
      },
    ];
    let asExpected = true;
    for (const [index, step] of steps.entries()) {
      const file = join(dir, `web-${index + 1}.yaml`);
      await writeFile(file, deploymentYaml('web', step.image, { replicas: 3 }));
      say(`\n$ kguard apply -f ${file}    # ${step.title}`);
      const run = await execa(kguard, ['apply', '-f', file, '--poll-interval', '500ms'], {
        env,
        stdio: 'inherit',
        reject: false,
      });
      say(`(exit code ${run.exitCode}; expected ${step.expectedExit})`);
      asExpected &&= run.exitCode === step.expectedExit;
    }
    say('\n$ kubectl get deployment web -o wide    # the cluster serves the old image again');
    await execa('kubectl', ['get', 'deployment', 'web', '-o', 'wide'], { env, stdio: 'inherit', reject: false });
    say('\n$ kubectl rollout history deployment/web');
    await execa('kubectl', ['rollout', 'history', 'deployment/web'], { env, stdio: 'inherit', reject: false });
    say(asExpected ? 'demo finished as expected' : 'demo: kguard did not exit as expected (see above)');
    return asExpected ? 0 : 1;
  } finally {
    await cluster.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

function say(text: string): void {
  process.stdout.write(`${text}\n`);
}

process.exitCode = await main();
