// Issue 9, end to end: bin/kguard → real kubectl → simulated cluster. The diagnosis a person can
// act on: the app's own last lines, a pull error judged by what the registry said, volume,
// eviction and scheduling causes, and a short failure block.
import { describe, expect, it } from 'vitest';
import type { ScenarioInput } from '../kube-sim/scenario.js';
import type { JsonReport } from '../../src/report/json.js';
import { sandbox, type KguardRun, type Sandbox, withSandbox } from './harness.js';

const fast = ['--poll-interval', '300ms', '--timeout', '120s'];

/** Each test has its own simulated cluster, so the slow ones (grace periods run on kguard's
 *  wall clock, not the simulator's) run side by side. */
const withCluster = (scenario: ScenarioInput, test: (sandboxed: Sandbox) => Promise<void>) =>
  withSandbox(() => sandbox({ scenario }), test);

/** A Deployment manifest with extras indented into the pod template. */
function manifest(
  name: string,
  image: string,
  extra: { annotations?: Record<string, string>; container?: string; podSpec?: string; replicas?: number } = {},
): string {
  const annotations = Object.entries(extra.annotations ?? {})
    .map(([key, value]) => `        ${key}: ${JSON.stringify(value)}`)
    .join('\n');
  return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
spec:
  replicas: ${extra.replicas ?? 3}
  selector:
    matchLabels: { app: ${name} }
  template:
    metadata:
      labels: { app: ${name} }
${annotations ? `      annotations:\n${annotations}\n` : ''}    spec:
${extra.podSpec ?? ''}      containers:
      - name: ${name}
        image: ${image}
${extra.container ?? ''}`;
}

/** The failure block: the ✖ verdict line and its indented details. */
function failureBlock(run: KguardRun): string[] {
  const lines = run.stdout.split('\n');
  const start = lines.findIndex((line) => line.startsWith('✖ deployment/'));
  if (start === -1) throw new Error(`no failure block in:\n${run.output}`);
  const block = [lines[start]!];
  for (const line of lines.slice(start + 1)) {
    if (!line.startsWith('    ')) break;
    block.push(line);
  }
  return block;
}

/** Rows a block takes on an 80-column terminal. */
const rows = (lines: string[]) =>
  lines.reduce((total, line) => total + Math.max(1, Math.ceil([...line].length / 80)), 0);

async function deploy(sandboxed: Sandbox, name: string, text: string, args: string[] = []): Promise<KguardRun> {
  const file = await sandboxed.write(`${name}-${Math.random().toString(36).slice(2)}.yaml`, text);
  return sandboxed.kguard(['apply', '-f', file, ...fast, ...args]);
}

describe.concurrent('kguard apply: diagnosis', () => {
  it("shows a crash-looping app's last lines, read before the rollback removed its pods", () =>
    withCluster({}, async (sandboxed) => {
      await sandboxed.deployHealthy('api');
      const output = [
        'booting api 2.0',
        'loading config from /etc/api',
        'connecting to postgres at db:5432',
        'FATAL: password authentication failed for user "api"',
        'exiting with code 1',
        '',
      ].join('\n');
      const annotations = { 'sim.kguard.dev/exit-code': '1', 'sim.kguard.dev/stdout': output };
      const run = await deploy(sandboxed, 'api', manifest('api', 'nginx:1.26', { annotations }), ['--output', 'json']);
      expect(run.exitCode, run.stderr).toBe(3);
      const log = run.stderr;
      expect(log).toContain('new pods cannot stay running (crash loop): CrashLoopBackOff');
      expect(log).toMatch(
        /last lines of container api \(pod api-[a-z0-9]+-[a-z0-9]+\):\n(?: {6}\| .*\n)* {6}\| connecting to postgres at db:5432\n {6}\| FATAL: password authentication failed for user "api"\n {6}\| exiting with code 1\n/,
      );
      expect(log).not.toMatch(/kubectl (logs|describe pod)/);
      // The lines were read before the restore removed the pods they came from.
      expect(log.indexOf('FATAL: password')).toBeLessThan(log.indexOf('put back as it was before the apply'));
      const report = JSON.parse(run.stdout) as JsonReport;
      expect(report.objects[0]?.logs[0]).toMatchObject({ container: 'api', previous: false, error: null });
      expect(report.objects[0]?.logs[0]?.lines).toContain('booting api 2.0');
      expect(sandboxed.imageOf('api')).toBe('nginx:1.25');
    }));

  it('waits out a registry rate limit a 1.31 kubelet reports without its cause, and rolls out once it clears', () =>
    withCluster({ kubeletVersion: '1.31', registry: { 'nginx:1.26': { rateLimitedPulls: 3 } } }, async (sandboxed) => {
      await sandboxed.deployHealthy('web');
      const run = await deploy(sandboxed, 'web', manifest('web', 'nginx:1.26'));
      expect(run.exitCode, run.output).toBe(0);
      expect(run.output).toMatch(/(ImagePullBackOff|ErrImagePull): .*429 Too Many Requests/);
      expect(run.output).not.toContain('restoring');
      expect(sandboxed.imageOf('web')).toBe('nginx:1.26');
    }));

  // Grace periods run on kguard's clock (wall time), not the simulator's: these take half a minute.
  it('names a volume whose ConfigMap is missing (FailedMount) and rolls back', { timeout: 120_000 }, () =>
    withCluster({}, async (sandboxed) => {
      await sandboxed.deployHealthy('web');
      const podSpec = '      volumes:\n      - name: config\n        configMap: { name: web-settings }\n';
      const container = '        volumeMounts:\n        - { name: config, mountPath: /etc/web }\n';
      const run = await deploy(sandboxed, 'web', manifest('web', 'nginx:1.26', { podSpec, container }));
      expect(run.exitCode, run.output).toBe(3);
      const block = failureBlock(run).join('\n');
      expect(block).toContain('new pods cannot mount their volumes: FailedMount');
      expect(block).toContain('MountVolume.SetUp failed for volume "config" : configmap "web-settings" not found');
      expect(block).toMatch(/next: create the volume's source/);
    }),
  );

  it('fails a rollout whose new pods are evicted again and again for their ephemeral-storage use', () =>
    withCluster({}, async (sandboxed) => {
      await sandboxed.deployHealthy('web');
      // A slow starter (ready after 60 s) that fills its writable layer within a second.
      const container =
        '        resources:\n          limits: { ephemeral-storage: 1Gi }\n        readinessProbe: { httpGet: { path: /healthz, port: 80 }, periodSeconds: 5 }\n';
      const annotations = {
        'sim.kguard.dev/ephemeral-storage-usage': '3Gi',
        'sim.kguard.dev/run-seconds': '1',
        'sim.kguard.dev/readiness-delay-seconds': '60',
      };
      const run = await deploy(sandboxed, 'web', manifest('web', 'nginx:1.26', { container, annotations }));
      expect(run.exitCode, run.output).toBe(3);
      const block = failureBlock(run).join('\n');
      expect(block).toContain('new pods cannot stay within their ephemeral-storage limit (evicted): Evicted');
      expect(block).toMatch(/\d pods: Evicted: Container web exceeded its local ephemeral storage limit "1Gi"\./);
      expect(block).toContain("next: raise the container's ephemeral-storage limit");
    }));

  it(
    'fails a node selector no node matches after its grace, instead of waiting for the timeout',
    { timeout: 120_000 },
    () =>
      withCluster({}, async (sandboxed) => {
        await sandboxed.deployHealthy('web');
        const podSpec = '      nodeSelector: { disktype: ssd }\n';
        const run = await deploy(sandboxed, 'web', manifest('web', 'nginx:1.26', { podSpec }), ['--timeout', '5m']);
        // 3 (failed and rolled back), not 5 (timed out).
        expect(run.exitCode, run.output).toBe(3);
        const block = failureBlock(run).join('\n');
        expect(block).toContain('new pods cannot be scheduled (no node satisfies its constraints): Unschedulable');
        expect(block).toContain("node(s) didn't match Pod's node affinity/selector");
        expect(block).toContain('kubectl get nodes --show-labels');
      }),
  );

  it('says an image typo in a short block: verdict line first, at most 8 rows of 80 columns', () =>
    withCluster({ registry: { 'xxxxxnginx:1.17': 'no-repository' } }, async (sandboxed) => {
      await sandboxed.deployHealthy('web');
      const run = await deploy(sandboxed, 'web', manifest('web', 'xxxxxnginx:1.17'));
      expect(run.exitCode, run.output).toBe(3);
      const block = failureBlock(run);
      expect(block[0]).toMatch(
        /^✖ deployment\/web \(namespace default\): new pods cannot pull image "xxxxxnginx:1\.17": (ErrImagePull|ImagePullBackOff) \(after /,
      );
      expect(block.join('\n')).toContain('pull access denied, repository does not exist or may require authorization');
      expect(rows(block), block.join('\n')).toBeLessThanOrEqual(8);
    }));
});
