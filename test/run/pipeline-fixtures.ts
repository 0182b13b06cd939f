// What the runApply tests share: a ConfigMap before and after, a Pod that cannot pull its image,
// the options of a plain apply and the deps around a faked Kubectl.
import { DEFAULTS, type ApplyOptions } from '../../src/model/options.js';
import type { KubeObject } from '../../src/objects/model.js';
import type { Deps } from '../../src/run/apply/apply.js';
import { FakeClock, RecordingReporter } from '../fakes.js';
import { pod } from '../fixtures/load.js';
import type { FakeCluster } from './fake-kubectl.js';

export const configBefore: KubeObject = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'settings', namespace: 'shop', uid: 'cm-uid', resourceVersion: '7' },
  data: { mode: 'old' },
};
export const configAfter: KubeObject = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'settings', namespace: 'shop' },
  data: { mode: 'new' },
};
/** A bare Pod whose image does not exist: the kubelet's ErrImagePull with the registry's "not found". */
export function doomedPod(): KubeObject {
  const fixture = pod('err-image-pull-not-found') as unknown as KubeObject;
  return { ...fixture, metadata: { name: 'probe', namespace: 'shop', labels: { app: 'probe' } } };
}

export const options: ApplyOptions = {
  manifests: { filenames: ['-'], recursive: false },
  applyArgs: [],
  selectionArgs: [],
  timeoutMs: DEFAULTS.timeoutMs,
  rollbackTimeoutMs: DEFAULTS.timeoutMs,
  pollIntervalMs: DEFAULTS.pollIntervalMs,
  verifyCommands: [],
  verifyJobs: [],
  verifyTimeoutMs: DEFAULTS.verifyTimeoutMs,
  keepVerify: false,
  bakeMs: 0,
  verifyIntervalMs: 0,
  history: 0,
  poll: true,
  rollback: 'all',
  keepCreated: false,
  journal: false,
  lockTimeoutMs: DEFAULTS.lockTimeoutMs,
  journalNamespace: DEFAULTS.journalNamespace,
  logLines: DEFAULTS.logLines,
  concurrency: DEFAULTS.concurrency,
  requestTimeoutMs: DEFAULTS.requestTimeoutMs,
};

export function depsFor(
  cluster: Pick<FakeCluster, 'kubectl'>,
  reporter = new RecordingReporter(),
): Deps & { reporter: RecordingReporter } {
  return {
    kubectl: cluster.kubectl,
    clock: new FakeClock(),
    reporter,
    inputs: {
      readStdin: async () => Buffer.from('# the fake reads no manifests: the apply writes what it planned\n'),
      kustomize: async () => '',
      download: async () => new Uint8Array(),
    },
    keepCopy: async () => '/tmp/kguard-copy.json',
  };
}
