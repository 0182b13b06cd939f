// runApply, the whole pipeline, on a Kubectl faked at its interface: the decisions and their order
// are tested here without processes; test/e2e drives the same code through the real kubectl.
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/objects/model.js';
import { runApply } from '../../src/run/apply/apply.js';
import { exitCodeFor } from '../../src/run/apply/result.js';
import { readHistorySecret } from '../../src/journal/history.js';
import { ManualClock, RecordingReporter } from '../fakes.js';
import { pod } from '../fixtures/load.js';
import { fakeCluster } from './fake-kubectl.js';
import { configAfter, configBefore, depsFor, doomedPod, options } from './pipeline-fixtures.js';

describe('runApply', () => {
  it('restores a changed ConfigMap and deletes the created Pod when the Pod cannot pull its image (exit 3)', async () => {
    const cluster = fakeCluster([configBefore], [configAfter, doomedPod()]);
    const deps = depsFor(cluster);
    const result = await runApply(options, deps);
    expect(exitCodeFor(result)).toBe(3);
    expect(cluster.live.get('/ConfigMap/shop/settings')?.['data']).toEqual({ mode: 'old' });
    expect(cluster.live.has('/Pod/shop/probe')).toBe(false);
    expect(result.objects.map((object) => [object.ref.kind, object.changeKind, object.restore?.status])).toEqual([
      ['ConfigMap', 'configured', 'restored'],
      ['Pod', 'created', 'deleted'],
    ]);
    // Configuration is put back before the workloads that read it.
    expect(deps.reporter.kinds()).toContain('restoring');
  });

  it("asks the dry run again with kubectl's default patch when kubectl's own types lack a field, and applies that same request", async () => {
    const cluster = fakeCluster([configBefore], [configAfter]);
    const asked: string[][] = [];
    const dryRun = cluster.kubectl.dryRun;
    cluster.kubectl.dryRun = async (request, strategy) => {
      asked.push([...request.applyArgs]);
      if (!request.applyArgs.includes('--openapi-patch=true'))
        return {
          ok: false,
          timedOut: false,
          stderr:
            'error: error when creating patch with:\nfor: "app.yaml": unable to find api field in struct EnvVarSource for the json field "fileKeyRef"',
        };
      return dryRun(request, strategy);
    };
    const applied: string[][] = [];
    const apply = cluster.kubectl.apply;
    cluster.kubectl.apply = async (request) => {
      applied.push([...request.applyArgs]);
      return apply(request);
    };
    const result = await runApply(options, depsFor(cluster));
    expect(exitCodeFor(result)).toBe(0);
    expect(asked).toEqual([options.applyArgs, [...options.applyArgs, '--openapi-patch=true']]);
    expect(applied).toEqual([[...options.applyArgs, '--openapi-patch=true']]);
  });

  it('takes no lease and writes no journal when the server dry run says the apply changes nothing', async () => {
    const cluster = fakeCluster([configBefore], [configBefore]);
    const result = await runApply({ ...options, journal: true }, depsFor(cluster));
    expect(exitCodeFor(result)).toBe(0);
    expect(cluster.calls.filter((call) => ['create', 'replace', 'deleteExact'].includes(call))).toEqual([]);
    // It only looks for a dead run's journal on its objects: one list of journals, one of Leases.
    expect(cluster.calls.filter((call) => call === 'listLabelled')).toEqual(['listLabelled', 'listLabelled']);
  });

  it('takes its leases and writes its journal when the apply changes something, and lets both go at the end', async () => {
    const cluster = fakeCluster([configBefore], [configAfter]);
    // A clock that stands still: the leases' renewals wait for it (a FakeClock would renew without pause).
    const result = await runApply({ ...options, journal: true }, { ...depsFor(cluster), clock: new ManualClock() });
    expect(exitCodeFor(result)).toBe(0);
    // One Lease (one namespace) and the journal; one list of the namespace's Leases.
    expect(cluster.calls.filter((call) => call === 'create')).toHaveLength(2);
    expect(cluster.calls.filter((call) => call === 'listCollection')).toHaveLength(1);
    expect([...cluster.live.values()].filter((object) => object.kind === 'Lease' || object.kind === 'Secret')).toEqual(
      [],
    );
    // Every kubectl process is counted, the end's deletes included.
    expect(result.kubectlProcesses).toBe(cluster.kubectl.spawned);
  });

  it('keeps a successful run in the history (--history): one more Secret, the record of what it changed', async () => {
    const cluster = fakeCluster([configBefore], [configAfter]);
    const reporter = new RecordingReporter();
    const result = await runApply(
      { ...options, journal: true, history: 10 },
      { ...depsFor(cluster, reporter), clock: new ManualClock() },
    );
    expect(exitCodeFor(result)).toBe(0);
    const kept = [...cluster.live.values()].filter((object) => object.kind === 'Secret');
    expect(kept.map((secret) => secret.metadata.labels?.['kguard.dev/history'])).toEqual(['v1']);
    expect(
      readHistorySecret(kept[0]!).objects.map(({ ref, change, before }) => [
        ref.name,
        change,
        (before?.['data'] as { mode?: string } | undefined)?.mode,
      ]),
    ).toEqual([['settings', 'configured', 'old']]);
    expect(reporter.kinds()).toContain('history-kept');
  });

  it('restores the apply when a --verify command fails after every object was applied, and runs nothing when the apply failed first', async () => {
    const cluster = fakeCluster([configBefore], [configAfter]);
    const commands: Array<{ command: string; env: Readonly<Record<string, string>> }> = [];
    const verify = {
      runCommand: async (command: string, run: { env: Readonly<Record<string, string>> }) => {
        commands.push({ command, env: run.env });
        return { exitCode: 2, timedOut: false, cancelled: false, output: 'checkout: 502\n', truncated: false };
      },
      env: { KUBECONFIG: '/tmp/kubeconfig' },
      report: () => '{}',
    };
    const result = await runApply(
      { ...options, verifyCommands: ['./smoke.sh', 'never-run'] },
      { ...depsFor(cluster), verify },
    );
    expect(exitCodeFor(result)).toBe(3);
    expect(result.outcome).toBe('rolled-back');
    expect(cluster.live.get('/ConfigMap/shop/settings')?.['data']).toEqual({ mode: 'old' });
    // The first failure stops the rest; the command learns the run.
    expect(commands.map(({ command }) => command)).toEqual(['./smoke.sh']);
    expect(commands[0]!.env).toMatchObject({
      KUBECONFIG: '/tmp/kubeconfig',
      KGUARD_NAMESPACE: 'shop',
      KGUARD_PHASE: 'verify',
      KGUARD_REPORT: expect.stringMatching(/report\.json$/),
    });
    expect(result.verification?.checks).toEqual([
      expect.objectContaining({ passed: false, exitCode: 2, lines: ['checkout: 502'] }),
    ]);

    const doomed = fakeCluster([configBefore], [configAfter, doomedPod()]);
    commands.length = 0;
    expect(
      exitCodeFor(await runApply({ ...options, verifyCommands: ['./smoke.sh'] }, { ...depsFor(doomed), verify })),
    ).toBe(3);
    expect(commands).toEqual([]);
  });

  it('writes nothing and ends exit 0 when the apply changed nothing', async () => {
    const cluster = fakeCluster([configBefore], [configBefore]);
    const result = await runApply(options, depsFor(cluster));
    expect(exitCodeFor(result)).toBe(0);
    expect(cluster.calls.filter((call) => ['replace', 'create', 'deleteExact'].includes(call))).toEqual([]);
  });
});

describe("the API server's warnings", () => {
  it('are said once, before the apply, from the server dry run', async () => {
    const warning =
      'Warning: autoscaling/v2beta2 HorizontalPodAutoscaler is deprecated in v1.23+, unavailable in v1.26+; use autoscaling/v2 HorizontalPodAutoscaler';
    const cluster = fakeCluster([configBefore], [configAfter], {
      warnings: `${warning}\n${warning}\nI1203 12:00:00.000000 1 request.go:700] Waited for 1.0s due to client-side throttling\n`,
    });
    const reporter = new RecordingReporter();
    await runApply(options, depsFor(cluster, reporter));
    const said = reporter.events.filter((event) => event.kind === 'kubectl-warnings');
    expect(said).toEqual([{ kind: 'kubectl-warnings', lines: [warning] }]);
    expect(reporter.kinds().indexOf('kubectl-warnings')).toBeLessThan(reporter.kinds().indexOf('applied'));
  });
});

describe('announce', () => {
  it('is called once with the result, for an apply and for a preview alike', async () => {
    for (const dryRun of [undefined, 'server'] as const) {
      const cluster = fakeCluster([configBefore], [configAfter]);
      const announced: string[] = [];
      const result = await runApply(
        { ...options, dryRun },
        { ...depsFor(cluster), announce: (known) => announced.push(known.outcome) },
      );
      expect(announced).toEqual([result.outcome]);
    }
  });
});

describe('before the apply', () => {
  it('refuses an apply whose kinds it could not restore (discovery unreadable), and applies nothing', async () => {
    const cluster = fakeCluster([configBefore], [configAfter, doomedPod()]);
    cluster.failFrom('apiResources', 1, new Error('the server is currently unable to handle the request'));
    await expect(runApply(options, depsFor(cluster))).rejects.toThrow(
      /cannot tell how it would restore this apply.*nothing was applied/,
    );
    expect(cluster.calls).not.toContain('apply');
  });

  it('does not ask discovery with --rollback none', async () => {
    const cluster = fakeCluster([configBefore], [configAfter]);
    cluster.failFrom('apiResources', 1, new Error('the server is currently unable to handle the request'));
    const result = await runApply({ ...options, rollback: 'none' }, depsFor(cluster));
    expect(exitCodeFor(result)).toBe(0);
  });
});

describe('--log-lines', () => {
  /** A Pod that crash-loops before and after: its rollout fails, and so does its restore. */
  function crashingBothWays() {
    const crashing = pod('crash-loop-backoff') as unknown as KubeObject;
    const before: KubeObject = {
      ...crashing,
      metadata: { name: 'probe', namespace: 'shop', uid: 'pod-uid', resourceVersion: '9', labels: { app: 'probe' } },
    };
    const after: KubeObject = {
      ...crashing,
      metadata: { name: 'probe', namespace: 'shop', labels: { app: 'probe', release: 'v2' } },
    };
    return fakeCluster([before], [after]);
  }

  it("reads the crashed containers' last lines at the rollout verdict and after the restore", async () => {
    const cluster = crashingBothWays();
    await runApply({ ...options, logLines: 5 }, depsFor(cluster));
    expect(cluster.calls.filter((call) => call === 'logs').length).toBe(2);
  });

  it("0 reads no logs in any phase, the restore's tracking included", async () => {
    const cluster = crashingBothWays();
    const result = await runApply({ ...options, logLines: 0 }, depsFor(cluster));
    expect(result.objects[0]?.afterRestore?.state).toBe('failed');
    expect(cluster.calls.filter((call) => call === 'logs')).toEqual([]);
  });
});

describe('runApply after the apply: nothing escapes', () => {
  it('a throw while tracking fails every changed object and restores them (exit 3, never exit 2)', async () => {
    const cluster = fakeCluster([configBefore], [configAfter, doomedPod()]);
    cluster.failFrom('workloadSnapshot', 1, new TypeError('Cannot read properties of undefined'));
    const reporter = new RecordingReporter();
    const originalEmit = reporter.emit.bind(reporter);
    // The tracker survives a failing read by design (it polls again); a reporter that throws is a bug of kguard's own.
    reporter.emit = (event) => {
      if (event.kind === 'tracking') throw new RangeError('Invalid regular expression: Regular expression too large');
      originalEmit(event);
    };
    const result = await runApply(options, depsFor(cluster, reporter));
    expect(reporter.kinds()).toContain('internal-error');
    expect(exitCodeFor(result)).toBe(3);
    expect(cluster.live.get('/ConfigMap/shop/settings')?.['data']).toEqual({ mode: 'old' });
    expect(cluster.live.has('/Pod/shop/probe')).toBe(false);
    expect(result.objects.every((object) => object.verdict?.state === 'failed')).toBe(true);
  });

  it('a read after the apply that keeps failing ends exit 4, every object "restore failed", nothing rolled back blindly', async () => {
    const cluster = fakeCluster([configBefore], [configAfter, doomedPod()]);
    // The copies before the apply are the by-name reads after the dry run (no journal, so no
    // second snapshot): the first two reads; every read by name after the apply fails.
    cluster.failFrom('getObject', 3, new Error('connection reset by peer'));
    const result = await runApply(options, depsFor(cluster));
    expect(exitCodeFor(result)).toBe(4);
    expect(result.objects.map((object) => object.restore?.status)).toEqual(['failed', 'failed']);
    expect(cluster.calls.filter((call) => ['replace', 'deleteExact'].includes(call))).toEqual([]);
  });

  it('a throw inside the restore leaves the run exit 4 with the failure named, never an escaped exception', async () => {
    const cluster = fakeCluster([configBefore], [configAfter, doomedPod()]);
    // The first discovery read is the check before the apply; the restore's is the second.
    cluster.failFrom('apiResources', 2, new TypeError('discovery exploded'));
    const result = await runApply(options, depsFor(cluster));
    expect(exitCodeFor(result)).toBe(4);
    expect(result.objects.some((object) => object.restore?.status === 'failed')).toBe(true);
  });

  it('a failing journal-free apply that changed nothing still throws its kubectl error (nothing to restore)', async () => {
    const cluster = fakeCluster([configBefore], [configAfter]);
    cluster.failFrom('apply', 1, new Error('not a KubectlError'));
    // Nothing was written: the apply's error is the run's error.
    await expect(runApply(options, depsFor(cluster))).rejects.toThrow(
      /kguard failed while kubectl applied: not a KubectlError/,
    );
  });
});

describe('rollbackCommand', () => {
  it('keeps only the flags kguard rollback takes, the pinned context and who the run was included', async () => {
    const { rollbackCommand } = await import('../../src/run/apply/journal-life.js');
    const kubectl = {
      commandLine: () =>
        "kubectl --kubeconfig=/home/me/.kube/config --context=prod --cluster=prod-eu --user=deployer '--as=ci bot' --request-timeout=30s --disable-compression",
    };
    expect(rollbackCommand('kguard-abc', kubectl)).toBe(
      "kguard rollback kguard-abc --kubeconfig=/home/me/.kube/config --context=prod --cluster=prod-eu --user=deployer '--as=ci bot'",
    );
  });
});
