// One test per reason row, on fixtures shaped like the real API's (test/fixtures/README.md).
import { describe, expect, it } from 'vitest';
import { rememberClues, NO_CLUES } from '../../src/classify/clues.js';
import { classifyPod, findingKey, findingKeyParts } from '../../src/classify/pod.js';
import { isFatalNow } from '../../src/kinds/engine.js';
import { events, pod } from '../fixtures/load.js';

describe('classifyPod: image pulls', () => {
  it('cannot judge a ≤1.31 ImagePullBackOff by its message alone: it names no cause', () => {
    const [finding] = classifyPod(pod('image-pull-backoff-1.31'));
    expect(finding).toMatchObject({
      reason: 'ImagePullBackOff',
      family: 'image-pull',
      pullCause: 'unknown',
      policy: { when: 'after' },
    });
  });

  it('judges a ≤1.31 ImagePullBackOff by the Failed event: a rate limit is transient, never fatal by itself', () => {
    const backOff = pod('image-pull-backoff-1.31');
    const clues = rememberClues(NO_CLUES, [backOff], { pod: backOff, events: events('image-pull-backoff-1.31') });
    const [finding] = classifyPod(backOff, clues);
    expect(finding).toMatchObject({ pullCause: 'transient', policy: { when: 'never' } });
    expect(finding?.pullError).toMatch(/^failed to pull and unpack image .*429 Too Many Requests/);
    expect(finding?.rule.nextStep).toMatch(/may recover by itself/);
  });

  it('judges a ≤1.31 ImagePullBackOff by the ErrImagePull an earlier poll saw for the same image', () => {
    const notFound = pod('err-image-pull-not-found');
    const backOff = structuredClone(notFound);
    backOff.status!.containerStatuses![0]!.state = {
      waiting: { reason: 'ImagePullBackOff', message: 'Back-off pulling image "nginx:1.17.99"' },
    };
    const clues = rememberClues(NO_CLUES, [notFound]);
    expect(classifyPod(backOff, clues)[0]).toMatchObject({ pullCause: 'final', policy: { when: 'now' } });
  });

  it('gives a layer blob not found a minute (replication lag after a push), then fails it', () => {
    const [finding] = classifyPod(pod('err-image-pull-blob-not-found'));
    expect(finding).toMatchObject({
      reason: 'ErrImagePull',
      family: 'image-pull',
      pullCause: 'lag',
      policy: { when: 'after', seconds: 60 },
    });
    expect(finding?.rule.nextStep).toMatch(/still replicating/);
    // Fatal a minute after the family was first seen, not before (kinds/engine.ts isFatalNow).
    expect(isFatalNow(finding!.policy, 0, 59_000)).toBe(false);
    expect(isFatalNow(finding!.policy, 0, 60_000)).toBe(true);
  });

  it('takes a DNS failure (no such host) as transient', () => {
    expect(classifyPod(pod('err-image-pull-no-such-host'))[0]).toMatchObject({
      pullCause: 'transient',
      policy: { when: 'never' },
    });
  });

  it('takes RegistryUnavailable (CRI-O) as transient and SignatureValidationFailed as fatal at once', () => {
    expect(classifyPod(pod('registry-unavailable'))[0]).toMatchObject({
      reason: 'RegistryUnavailable',
      family: 'image-pull',
      policy: { when: 'never' },
    });
    expect(classifyPod(pod('signature-validation-failed'))[0]).toMatchObject({
      reason: 'SignatureValidationFailed',
      policy: { when: 'now' },
    });
  });

  it('gives ImageInspectError a grace period: the node runtime, not the release, may be at fault', () => {
    expect(classifyPod(pod('image-inspect-error'))[0]).toMatchObject({
      reason: 'ImageInspectError',
      family: 'image-pull',
      policy: { when: 'after', seconds: 30 },
    });
  });

  it('keys ErrImagePull and ImagePullBackOff of one container under one family', () => {
    const [pull] = classifyPod(pod('err-image-pull-not-found'));
    const backOff = pod('err-image-pull-not-found');
    backOff.status!.containerStatuses![0]!.state = {
      waiting: { reason: 'ImagePullBackOff', message: 'Back-off pulling image "nginx:1.17.99"' },
    };
    expect(findingKey(classifyPod(backOff)[0]!)).toBe(findingKey(pull!));
  });
});

describe('classifyPod: starting and running', () => {
  it('reports PostStartHookError with the hook output, in the start family', () => {
    const [finding] = classifyPod(pod('post-start-hook-error'));
    expect(finding).toMatchObject({
      reason: 'PostStartHookError',
      family: 'start',
      ran: true,
      policy: { when: 'after', restarts: 3 },
    });
    expect(finding?.message).toContain("command '/bin/sh -c /app/warm-cache' exited with 1");
    expect(finding?.rule.nextStep).toMatch(/lifecycle.postStart hook of CONTAINER/);
  });

  it('keeps calling a back-off after a failed postStart hook a PostStartHookError: the kubelet shows the cause only until its next sync', () => {
    const hook = pod('post-start-hook-error');
    const clues = rememberClues(NO_CLUES, [hook]);
    const backOff = structuredClone(hook);
    backOff.status!.containerStatuses![0]!.state = {
      waiting: { reason: 'CrashLoopBackOff', message: 'back-off 10s restarting failed container=app pod=x' },
    };
    expect(classifyPod(backOff, clues)[0]).toMatchObject({
      reason: 'PostStartHookError',
      family: 'start',
      message: expect.stringContaining('Exec lifecycle hook'),
    });
    expect(classifyPod(backOff)[0]).toMatchObject({ reason: 'CrashLoopBackOff', family: 'crash' });
  });

  it('learns a failed postStart hook from its FailedPostStartHook event when no poll saw the waiting state', () => {
    const backOff = pod('post-start-hook-error');
    backOff.status!.containerStatuses![0]!.state = {
      waiting: { reason: 'CrashLoopBackOff', message: 'back-off 10s restarting failed container=app pod=x' },
    };
    const event = {
      ...events('crash-loop-backoff')[0]!,
      type: 'Warning',
      reason: 'FailedPostStartHook',
      message: 'PostStartHook failed',
    };
    event.involvedObject = {
      kind: 'Pod',
      name: backOff.metadata.name,
      uid: backOff.metadata.uid,
      fieldPath: 'spec.containers{app}',
    };
    const clues = rememberClues(NO_CLUES, [backOff], { pod: backOff, events: [event] });
    expect(classifyPod(backOff, clues)[0]).toMatchObject({ reason: 'PostStartHookError', family: 'start' });
  });

  it('reports PreStartHookError (the kubelet refused the container) after a grace', () => {
    expect(classifyPod(pod('pre-start-hook-error'))[0]).toMatchObject({
      reason: 'PreStartHookError',
      family: 'start',
      policy: { when: 'after', seconds: 30 },
    });
  });

  it('puts a CrashLoopBackOff after a StartError in the start family with RunContainerError', () => {
    const startError = pod('run-container-error');
    const [run] = classifyPod(startError);
    startError.status!.containerStatuses![0]!.state = {
      waiting: { reason: 'CrashLoopBackOff', message: 'back-off 20s restarting failed container=app pod=x' },
    };
    const [backOff] = classifyPod(startError);
    expect(backOff).toMatchObject({ family: 'start', ran: false });
    expect(findingKey(backOff!)).toBe(findingKey(run!));
  });

  it('knows a crash loop ran (its logs are worth reading) and a StartError did not', () => {
    expect(classifyPod(pod('crash-loop-backoff'))[0]).toMatchObject({ ran: true, running: false });
    expect(classifyPod(pod('run-container-error'))[0]).toMatchObject({ ran: false });
  });

  it('reports an unknown waiting reason by name, and fails it after a grace', () => {
    const [finding] = classifyPod(pod('unknown-waiting-reason'));
    expect(finding).toMatchObject({
      reason: 'RunInitContainerError',
      family: 'other',
      policy: { when: 'after', seconds: 60 },
    });
    expect(finding?.rule.category).toBe('unknown');
    expect(finding?.rule.cannot).toContain('RunInitContainerError');
  });

  it('reports readiness gates that are not satisfied, as never fatal by themselves', () => {
    expect(classifyPod(pod('readiness-gates-not-ready'))).toEqual([
      expect.objectContaining({
        reason: 'ReadinessGatesNotReady',
        policy: { when: 'never' },
        message: expect.stringContaining('readiness gate'),
      }),
    ]);
  });
});

describe('classifyPod: volumes (from events of a pod stuck in ContainerCreating)', () => {
  it('reports FailedMount with its message once the events were read', () => {
    const creating = pod('container-creating');
    expect(classifyPod(creating)).toEqual([]);
    const clues = rememberClues(NO_CLUES, [creating], { pod: creating, events: events('failed-mount') });
    expect(classifyPod(creating, clues)).toEqual([
      expect.objectContaining({
        reason: 'FailedMount',
        family: 'volume',
        policy: { when: 'after', seconds: 30 },
        message: expect.stringContaining('configmap "web-config" not found'),
      }),
    ]);
  });

  it('names the Multi-Attach error, not the mount timeout that follows it', () => {
    const creating = pod('container-creating');
    const clues = rememberClues(NO_CLUES, [creating], { pod: creating, events: events('failed-attach-volume') });
    const [finding] = classifyPod(creating, clues);
    expect(finding).toMatchObject({
      reason: 'FailedAttachVolume',
      message: expect.stringContaining('Multi-Attach error'),
    });
    expect(finding?.rule.nextStep).toMatch(/Recreate/);
  });
});

describe('classifyPod: evictions', () => {
  it('calls an eviction over the pod own ephemeral-storage limit fatal once two new pods show it', () => {
    const [finding] = classifyPod(pod('evicted-ephemeral-storage'));
    expect(finding).toMatchObject({ reason: 'Evicted', family: 'eviction', policy: { when: 'after', pods: 2 } });
    expect(finding?.message).toBe('Container app exceeded its local ephemeral storage limit "1Gi".');
  });

  it('does not blame the release for an eviction under node pressure', () => {
    expect(classifyPod(pod('evicted-node-pressure'))[0]).toMatchObject({
      reason: 'Evicted',
      policy: { when: 'never' },
    });
  });
});

describe('classifyPod: scheduling', () => {
  it('a node selector no node matches is a constraint: fatal after a grace', () => {
    const [finding] = classifyPod(pod('unschedulable-node-selector'));
    expect(finding).toMatchObject({
      reason: 'Unschedulable',
      family: 'schedule',
      policy: { when: 'after', seconds: 30 },
    });
    expect(finding?.rule.nextStep).toMatch(/nodeSelector/);
  });

  it('an untolerated taint on every node is a constraint, with the taint in the next step', () => {
    const [finding] = classifyPod(pod('unschedulable-taint'));
    expect(finding?.policy).toEqual({ when: 'after', seconds: 30 });
    expect(finding?.rule.nextStep).toMatch(/toleration/);
  });

  it('a not-ready taint or a node short of room may heal: only explains a timeout', () => {
    expect(classifyPod(pod('unschedulable-not-ready-taint'))[0]?.policy).toEqual({ when: 'never' });
    expect(classifyPod(pod('unschedulable-mixed'))[0]?.policy).toEqual({ when: 'never' });
    expect(classifyPod(pod('unschedulable-pending'))[0]?.policy).toEqual({ when: 'never' });
  });
});

describe("a Job's next step", () => {
  it('names no pod: a restore deletes a Job the apply created, and its pods with it', async () => {
    const { JOB_CONDITION_REASONS } = await import('../../src/classify/conditions.js');
    for (const [reason, rule] of Object.entries(JOB_CONDITION_REASONS)) {
      expect(rule.nextStep, reason).not.toMatch(/\bPOD\b/);
      expect(rule.nextStep, reason).not.toMatch(/^read why its pods failed: kubectl logs/);
    }
  });
});

describe('findingKeyParts', () => {
  it('reads back the pod and container a finding key names, and a condition reason as a pod name', () => {
    const key = findingKey({ pod: 'web-7d9c6b8f4d-x5k2p', container: 'app', family: 'image-pull' });
    expect(findingKeyParts(key)).toEqual({ pod: 'web-7d9c6b8f4d-x5k2p', container: 'app' });
    expect(findingKeyParts(findingKey({ pod: 'web-1', family: 'start' }))).toEqual({
      pod: 'web-1',
      container: '',
    });
    expect(findingKeyParts('ProgressDeadlineExceeded')).toEqual({ pod: 'ProgressDeadlineExceeded', container: '' });
  });
});
