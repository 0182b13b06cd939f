// The job controller under the real kubectl: `kubectl wait --for=condition=complete` and
// `--for=condition=failed` as against a real 1.32 cluster, the two-step terminal conditions,
// the pod failure back-off, and the API server's immutable pod template.

import { describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from '../cluster.js';
import { jobYaml, kubectl } from '../testing/kubectl.js';
import type { KubeObject } from '../types.js';
import { stopAfterEach } from '../testing/test-steps.js';

let cluster: Cluster | undefined;
stopAfterEach(() => cluster);

async function apply(yaml: string) {
  return kubectl(cluster!, ['apply', '-f', '-'], yaml);
}

const job = (name: string): KubeObject => cluster!.store.get('Job', 'default', name)!;
const conditionTypes = (name: string) =>
  ((job(name).status?.conditions ?? []) as { type: string }[]).map((c) => c.type);

describe('job controller with the real kubectl', () => {
  it('runs a pod to completion: SuccessCriteriaMet, then Complete, and kubectl wait returns', async () => {
    cluster = await startCluster({ timeScale: 20 });
    expect((await apply(jobYaml('migrate', 'busybox:1.36'))).stdout).toBe('job.batch/migrate created');
    const created = job('migrate');
    const uid = created.metadata.uid!;
    expect(created.spec).toMatchObject({
      backoffLimit: 6,
      completionMode: 'NonIndexed',
      completions: 1,
      parallelism: 1,
      manualSelector: false,
      podReplacementPolicy: 'TerminatingOrFailed',
      suspend: false,
      selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': uid } },
    });
    expect(created.spec.template.metadata.labels).toEqual({
      'batch.kubernetes.io/controller-uid': uid,
      'batch.kubernetes.io/job-name': 'migrate',
      'controller-uid': uid,
      'job-name': 'migrate',
    });
    const wait = await kubectl(cluster, ['wait', '--for=condition=complete', 'job/migrate', '--timeout=30s']);
    expect(wait.exitCode, wait.stderr).toBe(0);
    expect(wait.stdout).toBe('job.batch/migrate condition met');
    const status = job('migrate').status;
    expect(conditionTypes('migrate')).toEqual(['SuccessCriteriaMet', 'Complete']);
    expect(status.conditions[1]).toMatchObject({
      status: 'True',
      reason: 'CompletionsReached',
      message: 'Reached expected number of succeeded pods',
    });
    expect(status).toMatchObject({ succeeded: 1, ready: 0, terminating: 0, uncountedTerminatedPods: {} });
    expect(status.completionTime).toBeDefined();
    expect(status.active).toBeUndefined();
    const pods = cluster.store.list('Pod', 'default', 'job-name=migrate');
    expect(pods.map((pod) => pod.status.phase)).toEqual(['Succeeded']);
    const events = cluster.store
      .list('Event', 'default')
      .filter((event) => (event['involvedObject'] as { kind: string }).kind === 'Job')
      .map((event) => `${event['reason']}: ${event['message']}`);
    expect(events).toEqual([`SuccessfulCreate: Created pod: ${pods[0]!.metadata.name}`, 'Completed: Job completed']);
  });

  it('runs completions with parallelism', async () => {
    cluster = await startCluster({ timeScale: 20 });
    await apply(jobYaml('batch', 'busybox:1.36', { completions: 4, parallelism: 2 }));
    const wait = await kubectl(cluster, ['wait', '--for=condition=complete', 'job/batch', '--timeout=30s']);
    expect(wait.exitCode, wait.stderr).toBe(0);
    expect(job('batch').status.succeeded).toBe(4);
    expect(cluster.store.list('Pod', 'default', 'job-name=batch')).toHaveLength(4);
  });

  it('fails with BackoffLimitExceeded after backoffLimit + 1 failed pods, replaced after the back-off', async () => {
    cluster = await startCluster({ timeScale: 40 });
    await apply(jobYaml('broken', 'busybox:1.36', { exitCode: 1, runSeconds: 1, backoffLimit: 2 }));
    const wait = await kubectl(cluster, ['wait', '--for=condition=failed', 'job/broken', '--timeout=40s']);
    expect(wait.exitCode, wait.stderr).toBe(0);
    expect(conditionTypes('broken')).toEqual(['FailureTarget', 'Failed']);
    const failed = (job('broken').status.conditions as { type: string }[]).find((c) => c.type === 'Failed');
    expect(failed).toMatchObject({
      status: 'True',
      reason: 'BackoffLimitExceeded',
      message: 'Job has reached the specified backoff limit',
    });
    expect(job('broken').status).toMatchObject({ failed: 3, ready: 0, terminating: 0 });
    expect(job('broken').status.completionTime).toBeUndefined();
    const pods = cluster.store
      .list('Pod', 'default', 'job-name=broken')
      .sort((a, b) => a.metadata.creationTimestamp!.localeCompare(b.metadata.creationTimestamp!));
    expect(pods.map((pod) => pod.status.phase)).toEqual(['Failed', 'Failed', 'Failed']);
    // The second pod waits 10 s after the first failure, the third 20 s after the second.
    const finished = (pod: KubeObject) => Date.parse(pod.status.containerStatuses[0].state.terminated.finishedAt);
    expect(Date.parse(pods[1]!.metadata.creationTimestamp!) - finished(pods[0]!)).toBeGreaterThanOrEqual(10_000);
    expect(Date.parse(pods[2]!.metadata.creationTimestamp!) - finished(pods[1]!)).toBeGreaterThanOrEqual(20_000);
    const warning = cluster.store.list('Event', 'default').find((event) => event['reason'] === 'BackoffLimitExceeded');
    expect(warning).toMatchObject({ type: 'Warning', message: 'Job has reached the specified backoff limit' });
  });

  it('counts container restarts against backoffLimit with restartPolicy OnFailure', async () => {
    cluster = await startCluster({ timeScale: 40 });
    await apply(
      jobYaml('flaky', 'busybox:1.36', { exitCode: 1, runSeconds: 1, backoffLimit: 1, restartPolicy: 'OnFailure' }),
    );
    const wait = await kubectl(cluster, ['wait', '--for=condition=failed', 'job/flaky', '--timeout=40s']);
    expect(wait.exitCode, wait.stderr).toBe(0);
    expect(job('flaky').status).toMatchObject({ failed: 1 });
    expect(cluster.store.list('Pod', 'default', 'job-name=flaky')).toHaveLength(0);
  });

  it('fails with DeadlineExceeded after activeDeadlineSeconds and stops its pod', async () => {
    cluster = await startCluster({ timeScale: 40 });
    await apply(jobYaml('slow', 'busybox:1.36', { runSeconds: 600, activeDeadlineSeconds: 10 }));
    const wait = await kubectl(cluster, ['wait', '--for=condition=failed', 'job/slow', '--timeout=30s']);
    expect(wait.exitCode, wait.stderr).toBe(0);
    const failed = (job('slow').status.conditions as { type: string }[]).find((c) => c.type === 'Failed');
    expect(failed).toMatchObject({
      reason: 'DeadlineExceeded',
      message: 'Job was active longer than specified deadline',
    });
  });

  it('refuses a change of the pod template: 422 field is immutable', async () => {
    cluster = await startCluster({ timeScale: 20 });
    await apply(jobYaml('migrate', 'busybox:1.36'));
    const changed = await apply(jobYaml('migrate', 'busybox:1.37'));
    expect(changed.exitCode).toBe(1);
    expect(changed.stderr).toMatch(
      /^The Job "migrate" is invalid: spec\.template: Invalid value: core\.PodTemplateSpec\{ObjectMeta:v1\.ObjectMeta\{Name:"", GenerateName:"", /,
    );
    expect(changed.stderr).toContain('Labels:map[string]string{"batch.kubernetes.io/controller-uid":');
    expect(changed.stderr).toContain('Image:"busybox:1.37"');
    expect(changed.stderr.trim()).toMatch(/\}: field is immutable$/);
    const policy = await apply(
      jobYaml('always', 'busybox:1.36').replace('restartPolicy: Never', 'restartPolicy: Always'),
    );
    expect(policy.stderr.trim()).toBe(
      'The Job "always" is invalid: spec.template.spec.restartPolicy: Unsupported value: "Always": supported values: "OnFailure", "Never"',
    );
  });
});
