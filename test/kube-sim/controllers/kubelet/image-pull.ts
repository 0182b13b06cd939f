// The kubelet's image step (pkg/kubelet/images/image_manager.go EnsureImageExists) for one
// container start: parse the reference, honour imagePullPolicy and the per-pod pull back-off,
// pull from the simulated registry, and report ErrImagePull / ImagePullBackOff / InvalidImageName.

import { imagePullPolicyFor } from '../../server/defaults.js';
import type { EventType } from '../events.js';
import type { Backoff } from './backoff.js';
import { goDuration, parseImageRef, type ImageRef, type SimulatedRegistry } from './images.js';

/** What the image step needs from the pod worker, scoped to one container. */
export interface PullHost {
  image: string;
  imagePullPolicy?: string;
  podUid: string;
  imagesOnNode: Set<string>;
  registry: SimulatedRegistry;
  imageBackoff: Backoff;
  errorResyncMs: number;
  /** ≤1.31 kubelets: the back-off message names the image only, not the last error. */
  legacyBackOffMessage?: boolean;
  lastPullError?: string;
  now(): number;
  after(ms: number, callback: () => void): void;
  event(type: EventType, reason: string, message: string): void;
  /** Set the container's waiting state and publish the pod status. */
  wait(reason: string, message: string): void;
  /** Run the whole container start again (the kubelet's next pod sync). */
  resync(): void;
}

export function ensureImage(host: PullHost, then: (ref: ImageRef) => void): void {
  const { image } = host;
  const retryLater = () => host.after(host.errorResyncMs, () => host.resync());
  const parsed = parseImageRef(image);
  if ('error' in parsed) {
    const message = `Failed to apply default image tag "${image}": couldn't parse image name "${image}": ${parsed.error}`;
    host.event('Warning', 'InspectFailed', message);
    host.wait('InvalidImageName', message);
    host.event('Warning', 'Failed', 'Error: InvalidImageName');
    return retryLater();
  }
  const policy = host.imagePullPolicy ?? imagePullPolicyFor(image);
  const present = host.imagesOnNode.has(parsed.normalized);
  if (policy === 'Never' && !present) {
    const message = `Container image "${image}" is not present with pull policy of Never`;
    host.event('Warning', 'ErrImageNeverPull', message);
    host.wait('ErrImageNeverPull', message);
    host.event('Warning', 'Failed', 'Error: ErrImageNeverPull');
    return retryLater();
  }
  if (present && policy !== 'Always') {
    // kubelet v1.37.2 images/image_manager.go (fixtures/crash-loop.events.json).
    host.event(
      'Normal',
      'Pulled',
      `Container image "${image}" already present on machine and can be accessed by the pod`,
    );
    return then(parsed);
  }
  // The back-off is per pod and image, as the kubelet keys it.
  const backoffKey = `${host.podUid}_${image}`;
  const now = host.now();
  if (host.imageBackoff.isInBackOffSinceUpdate(backoffKey, now)) {
    const message = `Back-off pulling image "${image}"`;
    host.event('Normal', 'BackOff', message);
    // 1.32 (kubernetes PR #127918) appends the previous pull error; earlier kubelets did not.
    host.wait(
      'ImagePullBackOff',
      host.legacyBackOffMessage ? message : `${message}: ErrImagePull: ${host.lastPullError ?? ''}`,
    );
    host.event('Warning', 'Failed', 'Error: ImagePullBackOff');
    const expiresAt = host.imageBackoff.expiresAt(backoffKey) ?? now;
    host.after(Math.max(1, Math.min(expiresAt - now, host.errorResyncMs)), () => host.resync());
    return;
  }
  host.event('Normal', 'Pulling', `Pulling image "${image}"`);
  const duration = host.registry.pullDurationMs(parsed);
  host.after(duration, () => {
    const outcome = host.registry.pull(parsed);
    if (outcome.ok) {
      host.imagesOnNode.add(parsed.normalized);
      const took = goDuration(duration);
      host.event(
        'Normal',
        'Pulled',
        `Successfully pulled image "${image}" in ${took} (${took} including waiting). Image size: ${outcome.sizeBytes} bytes.`,
      );
      return then(parsed);
    }
    host.event('Warning', 'Failed', `Failed to pull image "${image}": ${outcome.error}`);
    host.imageBackoff.next(backoffKey, host.now(), host.now());
    host.lastPullError = outcome.error;
    host.wait('ErrImagePull', outcome.error);
    host.event('Warning', 'Failed', 'Error: ErrImagePull');
    retryLater();
  });
}
