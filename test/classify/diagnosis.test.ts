import { describe, expect, it } from 'vitest';
import { diagnose, logTargets } from '../../src/classify/diagnosis.js';
import type { ContainerLog } from '../../src/model/findings.js';
import { classifyPod } from '../../src/classify/pod.js';
import type { Pod } from '../../src/kube.js';
import { formatEvent } from '../../src/report/format/format.js';
import type { RolloutVerdict as Verdict } from '../../src/model/verdict.js';
import { events, pod } from '../fixtures/load.js';

const workload = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'shop' };
const progress = { desired: 3, updated: 1, ready: 0, available: 0 };

function failed(pods: Pod[]): Verdict {
  const findings = pods.flatMap((each) => classifyPod(each));
  return { state: 'failed', progress, findings, cause: { source: 'pod', finding: findings[0]! } };
}

function replica(name: string, fixture: string): Pod {
  const copy = pod(fixture);
  copy.metadata.name = name;
  return copy;
}

/** Rows a line takes on an 80-column terminal. */
const rows = (lines: string[]) => lines.reduce((total, line) => total + Math.max(1, Math.ceil(line.length / 80)), 0);

describe('diagnose', () => {
  it('groups replicas failing alike into one line', () => {
    const verdict = failed(['a', 'b', 'c'].map((suffix) => replica(`web-7d9c6b8f4d-${suffix}`, 'image-pull-backoff')));
    const diagnosis = diagnose(verdict, events('image-pull-backoff'), workload)!;
    expect(diagnosis.summary).toBe('new pods cannot pull image "xxxxxnginx:1.17": ImagePullBackOff');
    expect(diagnosis.evidence).toEqual([
      '3 pods, container app: ImagePullBackOff: pull access denied, repository does not exist or may require authorization: server message: insufficient_scope: authorization failed',
    ]);
  });

  it('prints an image typo in at most 8 rows of 80 columns, verdict line first', () => {
    const verdict = failed(['a', 'b', 'c'].map((suffix) => replica(`web-7d9c6b8f4d-${suffix}`, 'image-pull-backoff')));
    const diagnosis = diagnose(verdict, events('image-pull-backoff'), { ...workload, namespace: 'default' })!;
    const line = formatEvent({
      kind: 'failed',
      workload: { ...workload, namespace: 'default' },
      diagnosis,
      elapsedMs: 1400,
    });
    const block = [`✖ ${line.text}`, ...(line.details ?? []).map((detail) => `    ${detail}`)];
    expect(block[0]).toMatch(/^✖ deployment\/web \(namespace default\): new pods cannot pull image/);
    expect(rows(block)).toBeLessThanOrEqual(8);
  });

  it('never sends a person to kubectl logs or describe of a pod the rollback removes', () => {
    const fixtures = [
      'crash-loop-backoff',
      'run-container-error',
      'create-container-config-error',
      'oom-killed-crash-loop',
      'post-start-hook-error',
      'unschedulable-pending',
      'unknown-waiting-reason',
      'evicted-ephemeral-storage',
    ];
    for (const fixture of fixtures) {
      const diagnosis = diagnose(failed([pod(fixture)]), [], workload)!;
      expect(diagnosis.nextStep, fixture).not.toMatch(/kubectl (logs|describe pod)/);
      expect(diagnosis.nextStep, fixture).not.toMatch(/\b(POD|CONTAINER|IMAGE|NAMESPACE)\b/);
    }
  });

  it('reads the logs of containers that ran, one pod per container, --previous only when it runs again', () => {
    const crashing = pod('crash-loop-backoff');
    const again = replica('web-7d9c6b8f4d-zz', 'crash-loop-backoff');
    again.status!.containerStatuses![0]!.state = { running: { startedAt: '2026-11-30T10:20:00Z' } };
    expect(logTargets(failed([crashing, again]))).toEqual([
      { pod: crashing.metadata.name, container: 'app', previous: false },
    ]);
    expect(logTargets(failed([pod('run-container-error')]))).toEqual([]);
    expect(logTargets(failed([pod('image-pull-backoff')]))).toEqual([]);
  });

  it('reads the logs of a running container that fails its readiness probe, for a timeout', () => {
    const findings = classifyPod(pod('running-not-ready-readiness'));
    const verdict: Verdict = {
      state: 'timed-out',
      progress,
      findings,
      waitingFor: '0 of 3 updated replicas are available',
    };
    expect(logTargets(verdict)).toEqual([{ pod: findings[0]!.pod, container: 'app', previous: false }]);
  });

  it('shows the last lines the crashed container printed, and says so in the next step', () => {
    const logs: ContainerLog[] = [
      {
        pod: 'web-7d9c6b8f4d-h6s9k',
        container: 'app',
        previous: false,
        lines: ['1', '2', 'starting', 'Error: DATABASE_URL is not set', 'exiting'],
        shown: 3,
      },
    ];
    const diagnosis = diagnose(failed([pod('crash-loop-backoff')]), events('crash-loop-backoff'), workload, logs)!;
    expect(diagnosis.nextStep).toMatch(/its last lines, read before any restore, say why/);
    const line = formatEvent({ kind: 'failed', workload, diagnosis, elapsedMs: 1000 });
    expect(line.details).toContain('last lines of container app (pod web-7d9c6b8f4d-h6s9k):');
    expect(line.details).toContain('  | Error: DATABASE_URL is not set');
    expect(line.details).not.toContain('  | 2');
    // The kubelet's back-off event only repeats the crash loop line.
    expect(diagnosis.evidence.some((evidence) => evidence.includes('Back-off restarting'))).toBe(false);
  });

  it('says the container printed nothing when its logs came back empty', () => {
    const diagnosis = diagnose(failed([pod('crash-loop-backoff')]), [], workload, [
      { pod: 'web-7d9c6b8f4d-h6s9k', container: 'app', previous: false, lines: [], shown: 5 },
    ])!;
    expect(diagnosis.nextStep).toMatch(/printed nothing/);
  });

  it('shows a volume event that names the cause when the findings name none', () => {
    const creating = pod('container-creating');
    const verdict = failed([creating]);
    const diagnosis = diagnose(
      { ...verdict, state: 'timed-out', waitingFor: '0 of 3 updated replicas are available' } as Verdict,
      events('failed-attach-volume'),
      workload,
    )!;
    expect(diagnosis.evidence.some((line) => line.startsWith('event FailedAttachVolume: Multi-Attach error'))).toBe(
      true,
    );
  });
});
