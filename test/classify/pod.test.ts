import { describe, expect, it } from 'vitest';
import { classifyPod } from '../../src/classify/pod.js';
import { pod } from '../fixtures/load.js';

describe('classifyPod', () => {
  it('finds nothing wrong with a running, ready pod', () => {
    expect(classifyPod(pod('running-ready'))).toEqual([]);
  });

  it('calls ImagePullBackOff an image-pull problem that is fatal at once', () => {
    const [finding] = classifyPod(pod('image-pull-backoff'));
    expect(finding).toMatchObject({ reason: 'ImagePullBackOff', container: 'app', image: 'xxxxxnginx:1.17' });
    expect(finding?.rule.category).toBe('image-pull');
    expect(finding?.policy).toEqual({ when: 'now' });
    expect(finding?.message).toContain('Back-off pulling image "xxxxxnginx:1.17"');
  });

  it('calls an ErrImagePull for a missing tag fatal at once: the registry said it does not exist', () => {
    const [finding] = classifyPod(pod('err-image-pull-not-found'));
    expect(finding).toMatchObject({
      reason: 'ErrImagePull',
      family: 'image-pull',
      pullCause: 'final',
      policy: { when: 'now' },
    });
  });

  it('treats a registry rate limit as passing: reported, never fatal by itself', () => {
    const [finding] = classifyPod(pod('err-image-pull-rate-limited'));
    expect(finding?.message).toMatch(/429|toomanyrequests/);
    expect(finding).toMatchObject({ pullCause: 'transient', policy: { when: 'never' } });
  });

  it('treats an authorization failure as a real pull failure, not a hiccup', () => {
    const [finding] = classifyPod(pod('err-image-pull-auth'));
    expect(finding?.rule.category).toBe('image-pull');
    expect(finding).toMatchObject({ pullCause: 'final', policy: { when: 'now' } });
  });

  it('calls InvalidImageName fatal at once', () => {
    const [finding] = classifyPod(pod('invalid-image-name'));
    expect(finding).toMatchObject({ reason: 'InvalidImageName', policy: { when: 'now' } });
  });

  it('reports a crash loop with its restarts and the last exit', () => {
    const [finding] = classifyPod(pod('crash-loop-backoff'));
    expect(finding).toMatchObject({
      reason: 'CrashLoopBackOff',
      restartCount: 4,
      lastTermination: { exitCode: 1, reason: 'Error' },
    });
    expect(finding?.rule.category).toBe('crash-loop');
  });

  it('points an OOMKilled crash loop at the memory limit', () => {
    const [finding] = classifyPod(pod('oom-killed-crash-loop'));
    expect(finding?.lastTermination).toMatchObject({ exitCode: 137, reason: 'OOMKilled' });
    expect(finding?.rule.nextStep).toMatch(/memory limit/);
  });

  it('classifies a missing ConfigMap as a config error', () => {
    const [finding] = classifyPod(pod('create-container-config-error'));
    expect(finding).toMatchObject({
      reason: 'CreateContainerConfigError',
      message: 'configmap "web-config" not found',
    });
    expect(finding?.rule.category).toBe('config');
  });

  it('reports an unschedulable pod without making it fatal on its own', () => {
    const findings = classifyPod(pod('unschedulable-pending'));
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({ reason: 'Unschedulable', policy: { when: 'never' } });
    expect(findings[0]?.message).toContain('Insufficient cpu');
  });

  it('reports a failing init container as such', () => {
    const findings = classifyPod(pod('init-container-crash-loop'));
    expect(findings[0]).toMatchObject({ initContainer: true, reason: 'CrashLoopBackOff' });
  });

  it('reports a running pod that is not ready, as not fatal', () => {
    const findings = classifyPod(pod('running-not-ready-readiness'));
    expect(findings).toEqual([expect.objectContaining({ reason: 'ContainersNotReady', policy: { when: 'never' } })]);
  });

  it('sees nothing wrong with a pod that is still creating its container', () => {
    expect(classifyPod(pod('container-creating'))).toEqual([]);
  });

  it('classifies a command missing from the image', () => {
    const [finding] = classifyPod(pod('run-container-error'));
    expect(finding?.reason).toBe('RunContainerError');
    expect(finding?.message).toContain('executable file not found');
  });
});

describe('classifyPod next steps', () => {
  it('sends a rate-limited pull to credentials or a mirror, not to the image name', () => {
    const [finding] = classifyPod(pod('err-image-pull-rate-limited'));
    expect(finding?.rule.nextStep).toMatch(/rate limit/);
  });
});
