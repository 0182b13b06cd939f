// One pod's life on its node, driven by the simulation clock: volumes → sandbox → init containers
// one by one → app containers (pull, create, start, probes, exits, restarts with back-off).
// Every step writes the pod status only when it changed, and records the kubelet's Events.

import { randomBytes } from 'node:crypto';
import type { SimClock } from '../../clock.js';
import { jsonEqual } from '../../json.js';
import type { Timing } from '../../scenario.js';
import type { Store } from '../../store.js';
import type { KubeObject } from '../../types.js';
import type { EventRecorder, EventSource, EventType } from '../events.js';
import type { Backoff } from './backoff.js';
import { containerConfigError, volumeMountErrors } from './config-refs.js';
import { ensureImage, type PullHost } from './image-pull.js';
import { goDuration, imageIdOf, type ImageRef, type SimulatedRegistry } from './images.js';
import { parseQuantity } from '../quantity.js';
import { LOGS_ANNOTATION_PREFIX, readKnobs, type ContainerKnobs } from './knobs.js';
import {
  ADMISSION_REJECT,
  NODE_PRESSURE_EVICTION,
  NODE_SHUTDOWN,
  pressureMessage,
  rejectionMessage,
  SHUTDOWN_MESSAGE,
  SHUTDOWN_REASON,
  siblingEnded,
} from './node-ends.js';
import { startFailingLivenessProbe, startReadinessProbe, type Probe, type ProbeHost } from './probes.js';
import { buildPodStatus, type ConditionMemory, type ContainerRuntime, type PodRuntimeView } from './status.js';

export interface KubeletServices {
  store: Store;
  clock: SimClock;
  recorder: EventRecorder;
  registry: SimulatedRegistry;
  timing: Timing;
  /** ≤1.31 kubelets word ImagePullBackOff without the last pull error. */
  legacyBackOffMessage: boolean;
  imageBackoff: Backoff;
  crashBackoff: Backoff;
  /** Normalized references of the images already on a node. */
  imagesOn(node: string): Set<string>;
}

type ContainerSpec = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The kubelet's eviction manager looks at usage this often (evictionMonitoringPeriod, default 10 s). */
const EVICTION_MONITORING_MS = 10_000;

interface ContainerTracking {
  runtime: ContainerRuntime;
  spec: ContainerSpec;
  timers: Set<() => void>;
  finishedAtMs?: number;
  startedAtMs?: number;
  lastPullError?: string;
  onSucceeded?: () => void;
}

export class PodWorker {
  private stopped = false;
  /** Being deleted: no more container work, only the final removal. */
  private terminating = false;
  private readonly timers = new Set<() => void>();
  private readonly memory: ConditionMemory = new Map();
  private readonly view: PodRuntimeView;
  private readonly initContainers: ContainerTracking[];
  private readonly containers: ContainerTracking[];
  private readonly source: EventSource;
  private mountAttempts = 0;
  readonly uid: string;

  constructor(
    private pod: KubeObject,
    private readonly nodeName: string,
    hostIP: string,
    private readonly podIP: string,
    private readonly services: KubeletServices,
  ) {
    this.uid = pod.metadata.uid ?? '';
    this.source = { component: 'kubelet', host: nodeName };
    const track = (spec: ContainerSpec, init: boolean): ContainerTracking => ({
      spec,
      timers: new Set(),
      runtime: {
        name: spec.name,
        init,
        fieldPath: `spec.${init ? 'initContainers' : 'containers'}{${spec.name}}`,
        state: { waiting: { reason: init ? 'PodInitializing' : 'ContainerCreating' } },
        lastState: {},
        restartCount: 0,
        ready: false,
        started: false,
        image: spec.image,
        imageID: '',
        instances: 0,
        succeeded: false,
        sidecar: init && spec.restartPolicy === 'Always',
      },
    });
    this.initContainers = ((pod.spec?.initContainers as ContainerSpec[] | undefined) ?? []).map((spec) =>
      track(spec, true),
    );
    this.containers = ((pod.spec?.containers as ContainerSpec[] | undefined) ?? []).map((spec) => track(spec, false));
    // Until initialization is done every container waits with PodInitializing, as the kubelet reports it.
    if (this.initContainers.length > 0)
      for (const c of this.containers) c.runtime.state = { waiting: { reason: 'PodInitializing' } };
    this.view = {
      sandboxReady: false,
      hostIP,
      startTime: services.clock.nowIso(),
      initContainers: this.initContainers.map((c) => c.runtime),
      containers: this.containers.map((c) => c.runtime),
    };
  }

  start(): void {
    // kubelet HandlePodAdditions → canAdmitPod → rejectPod: refused before anything runs.
    const rejectReason = this.pod.metadata.annotations?.[ADMISSION_REJECT];
    if (rejectReason && !siblingEnded(this.services.store, this.pod, rejectReason)) return this.reject(rejectReason);
    this.publish();
    this.mountVolumes();
  }

  /** kubelet.go rejectPod: a Warning event with the admit handler's reason, the pod Failed for good. */
  private reject(reason: string): void {
    const message = rejectionMessage(reason);
    this.podEvent('Warning', reason, message.replace(/^Pod was rejected: /, ''));
    this.view.evicted = { message, at: this.nowIso(), reason, rejected: true };
    this.publish();
    this.stop();
  }

  /** After the first app container has run a while: the node ends the pod, if the template asks and no sibling was ended so. */
  private watchNodeEnds(c: ContainerTracking, knobs: ContainerKnobs): void {
    if (c !== this.containers[0]) return;
    const annotations = this.pod.metadata.annotations ?? {};
    const after = knobs.runMs ?? this.services.timing.crashAfterMs;
    const resource = annotations[NODE_PRESSURE_EVICTION];
    if (resource)
      // eviction_manager.go synchronize: at the monitoring tick after the threshold is crossed.
      this.containerAfter(c, after + EVICTION_MONITORING_MS, () => {
        if (siblingEnded(this.services.store, this.pod, 'Evicted')) return;
        const request = (c.spec.resources?.requests as Record<string, string> | undefined)?.[resource];
        this.evict(pressureMessage(resource, c.runtime.name, request));
      });
    if (annotations[NODE_SHUTDOWN] === 'true')
      this.containerAfter(c, after, () => {
        if (siblingEnded(this.services.store, this.pod, SHUTDOWN_REASON)) return;
        // nodeshutdown_manager_linux.go killPods: the containers are stopped, the pod Failed with
        // reason Terminated and (PodDisruptionConditions) DisruptionTarget TerminationByKubelet.
        this.evict(SHUTDOWN_MESSAGE, SHUTDOWN_REASON);
      });
  }

  /** The pod changed outside the kubelet (a readiness gate's condition): publish the status again. */
  refresh(): void {
    this.publish();
  }

  stop(): void {
    this.stopped = true;
    this.stopTimers();
  }

  private stopTimers(): void {
    for (const cancel of this.timers) cancel();
    this.timers.clear();
    for (const c of [...this.initContainers, ...this.containers]) this.cancelContainerTimers(c);
  }

  /** Graceful deletion: stop the containers (Killing), then remove the pod object. */
  terminate(terminating: KubeObject): void {
    if (this.terminating) return;
    this.terminating = true;
    this.pod = terminating;
    for (const c of [...this.initContainers, ...this.containers]) {
      if ('running' in c.runtime.state) this.event(c, 'Normal', 'Killing', `Stopping container ${c.runtime.name}`);
    }
    this.stopTimers();
    const grace = (terminating.metadata.deletionGracePeriodSeconds as number | undefined) ?? 30;
    const cancel = this.services.clock.after(Math.min(this.services.timing.podTerminationMs, grace * 1000), () => {
      this.timers.delete(cancel);
      if (this.fresh())
        this.services.store.delete('Pod', this.pod.metadata.namespace ?? 'default', this.pod.metadata.name);
    });
    this.timers.add(cancel);
  }

  /** The pod object is gone (after termination, or deleted outright). */
  onDeleted(deleted: KubeObject): void {
    if (!this.terminating) {
      this.pod = deleted;
      for (const c of [...this.initContainers, ...this.containers]) {
        if ('running' in c.runtime.state) this.event(c, 'Normal', 'Killing', `Stopping container ${c.runtime.name}`);
      }
    }
    this.stop();
  }

  // ---- pod level ----

  private mountVolumes(): void {
    const errors = volumeMountErrors(this.services.store, this.pod);
    if (errors.length > 0) {
      for (const message of errors) this.podEvent('Warning', 'FailedMount', message);
      const { mountRetryInitialMs, mountRetryMaxMs } = this.services.timing;
      const delay = Math.min(mountRetryInitialMs * 2 ** this.mountAttempts, mountRetryMaxMs);
      this.mountAttempts++;
      this.after(delay, () => this.mountVolumes());
      return;
    }
    this.after(this.services.timing.sandboxMs, () => {
      this.view.sandboxReady = true;
      this.view.podIP = this.podIP;
      this.publish();
      this.runInit(0);
    });
  }

  private runInit(index: number): void {
    const c = this.initContainers[index];
    if (!c) {
      for (const app of this.containers) {
        if ('waiting' in app.runtime.state && app.runtime.state.waiting.reason === 'PodInitializing')
          app.runtime.state = { waiting: { reason: 'ContainerCreating' } };
      }
      this.publish();
      for (const app of this.containers) this.startContainer(app);
      return;
    }
    // A sidecar (restartPolicy Always) lets the next init container start once it has started;
    // a regular one once it has exited 0.
    c.onSucceeded = () => this.runInit(index + 1);
    if ('waiting' in c.runtime.state) c.runtime.state = { waiting: { reason: 'ContainerCreating' } };
    this.startContainer(c);
  }

  // ---- container level ----

  /** computePodActions + startContainer for one container: back-off, image, create, start. */
  private startContainer(c: ContainerTracking): void {
    if (this.stopped) return;
    const now = this.now();
    const key = `${this.pod.metadata.name}_${this.pod.metadata.namespace}_${this.uid}_${c.runtime.name}`;
    if (c.finishedAtMs !== undefined) {
      const { crashBackoff } = this.services;
      if (crashBackoff.isInBackOffSince(key, c.finishedAtMs, now)) {
        this.toWaiting(
          c,
          'CrashLoopBackOff',
          `back-off ${goDuration(crashBackoff.get(key))} restarting failed container=${c.runtime.name} pod=${this.podRef()}`,
        );
        this.event(
          c,
          'Warning',
          'BackOff',
          `Back-off restarting failed container ${c.runtime.name} in pod ${this.podRef()}`,
        );
        this.publish();
        const retryAt = c.finishedAtMs + crashBackoff.get(key);
        this.after(Math.max(1, Math.min(retryAt - now, this.services.timing.errorResyncMs)), () =>
          this.startContainer(c),
        );
        return;
      }
      crashBackoff.next(key, c.finishedAtMs, now);
    }
    ensureImage(this.pullHost(c), (ref) => this.createContainer(c, ref));
  }

  private pullHost(c: ContainerTracking): PullHost {
    return {
      image: String(c.spec.image ?? ''),
      imagePullPolicy: c.spec.imagePullPolicy,
      podUid: this.uid,
      imagesOnNode: this.services.imagesOn(this.nodeName),
      registry: this.services.registry,
      imageBackoff: this.services.imageBackoff,
      errorResyncMs: this.services.timing.errorResyncMs,
      legacyBackOffMessage: this.services.legacyBackOffMessage,
      get lastPullError() {
        return c.lastPullError;
      },
      set lastPullError(error) {
        c.lastPullError = error;
      },
      now: () => this.now(),
      after: (ms, callback) => this.after(ms, callback),
      event: (type, reason, message) => this.event(c, type, reason, message),
      wait: (reason, message) => {
        this.toWaiting(c, reason, message);
        this.publish();
      },
      resync: () => this.startContainer(c),
    };
  }

  private createContainer(c: ContainerTracking, ref: ImageRef): void {
    const configError = containerConfigError(this.services.store, this.pod, c.spec);
    if (configError) {
      this.toWaiting(c, 'CreateContainerConfigError', configError);
      this.event(c, 'Warning', 'Failed', `Error: ${configError}`);
      this.publish();
      this.after(this.services.timing.errorResyncMs, () => this.startContainer(c));
      return;
    }
    const knobs = readKnobs(this.pod.metadata.annotations, c.runtime.name, c.runtime.init);
    const runtime = c.runtime;
    if (runtime.instances > 0) runtime.restartCount = runtime.instances;
    runtime.instances++;
    runtime.containerID = `containerd://${randomBytes(32).toString('hex')}`;
    runtime.image = ref.normalized;
    runtime.imageID = imageIdOf(ref);
    // kubelet v1.37.2 kuberuntime_container.go startContainer: the event names no container (its
    // involvedObject.fieldPath does); recorded in fixtures/crash-loop.events.json.
    this.event(c, 'Normal', 'Created', 'Container created');
    if (knobs.startError) {
      const message = knobs.startError === 'true' ? defaultStartError(c.spec) : knobs.startError;
      this.event(c, 'Warning', 'Failed', `Error: ${message}`);
      const terminated = {
        exitCode: 128,
        reason: 'StartError',
        message,
        startedAt: '1970-01-01T00:00:00Z',
        finishedAt: this.nowIso(),
        containerID: runtime.containerID,
      };
      runtime.lastState = { terminated };
      runtime.state = { waiting: { reason: 'RunContainerError', message } };
      c.finishedAtMs = this.now();
      this.publish();
      this.after(this.services.timing.errorResyncMs, () => this.startContainer(c));
      return;
    }
    this.after(this.services.timing.containerStartMs, () => this.run(c, knobs));
  }

  private run(c: ContainerTracking, knobs: ContainerKnobs): void {
    const runtime = c.runtime;
    this.event(c, 'Normal', 'Started', 'Container started');
    if ('terminated' in runtime.state) runtime.lastState = { terminated: runtime.state.terminated };
    runtime.state = { running: { startedAt: this.nowIso() } };
    c.startedAtMs = this.now();
    runtime.started = true;
    const appLike = !runtime.init || runtime.sidecar === true;
    runtime.ready = appLike && !c.spec.readinessProbe;
    this.writeLogs(runtime.name, knobs.stdout);
    if (c.spec.lifecycle?.postStart && knobs.postStartFailure !== undefined)
      return this.failPostStart(c, knobs.postStartFailure);
    this.publish();

    const misbehaves =
      (knobs.exitCode !== undefined || knobs.oomKill) &&
      (knobs.crashCount === undefined || runtime.instances <= knobs.crashCount);
    const exitCode = knobs.oomKill ? 137 : (knobs.exitCode ?? 0);
    const reason = knobs.oomKill ? 'OOMKilled' : exitCode === 0 ? 'Completed' : 'Error';
    if (runtime.init && !runtime.sidecar) {
      const code = misbehaves ? exitCode : 0;
      this.containerAfter(c, knobs.runMs ?? this.services.timing.initContainerRunMs, () =>
        this.exit(c, code, misbehaves ? reason : 'Completed'),
      );
      return;
    }
    // A started sidecar lets initialization go on (only once: a restart does not re-run the chain).
    if (runtime.sidecar && runtime.instances === 1) {
      const next = c.onSucceeded;
      this.after(this.services.timing.containerStartMs, () => next?.());
    }
    if (misbehaves)
      this.containerAfter(c, knobs.runMs ?? this.services.timing.crashAfterMs, () => this.exit(c, exitCode, reason));
    if (knobs.ephemeralStorageUsage !== undefined) this.watchEphemeralStorage(c, knobs);
    if (!runtime.init) this.watchNodeEnds(c, knobs);
    if (c.spec.readinessProbe)
      startReadinessProbe(
        this.probeHost(c),
        c.spec.readinessProbe as Probe,
        knobs,
        this.services.timing.readinessDelayMs,
      );
    if (c.spec.livenessProbe && knobs.liveness === 'fail')
      startFailingLivenessProbe(this.probeHost(c), c.spec.livenessProbe as Probe);
  }

  /**
   * kuberuntime_container.go startContainer step 4: the postStart hook failed, so the kubelet
   * records FailedPostStartHook ("PostStartHook failed": the output stays out of events), kills
   * the container (Killing, message FailedPostStartHook) and reports PostStartHookError with the
   * hook runner's message (lifecycle/handlers.go); the restart goes through the crash back-off.
   */
  private failPostStart(c: ContainerTracking, output: string): void {
    const runtime = c.runtime;
    const hook = c.spec.lifecycle.postStart as {
      exec?: { command?: string[] };
      httpGet?: { path?: string; port?: number | string };
    };
    const pod = this.podRef();
    let message: string;
    if (hook.exec) {
      const command = hook.exec.command ?? [];
      message =
        `Exec lifecycle hook ([${command.join(' ')}]) for Container "${runtime.name}" in Pod "${pod}" failed - error: ` +
        `command '${command.join(' ')}' exited with 1: ${output}, message: ${JSON.stringify(output)}`;
    } else {
      const path = hook.httpGet?.path ?? '/';
      const port = hook.httpGet?.port ?? 80;
      message = `HTTP lifecycle hook (${path}) for Container "${runtime.name}" in Pod "${pod}" failed - error: Get "http://${this.podIP}:${port}${path}": dial tcp ${this.podIP}:${port}: connect: connection refused`;
    }
    this.event(c, 'Warning', 'FailedPostStartHook', 'PostStartHook failed');
    this.event(c, 'Normal', 'Killing', 'FailedPostStartHook');
    const startedAt = 'running' in runtime.state ? runtime.state.running.startedAt : this.nowIso();
    runtime.lastState = {
      terminated: {
        exitCode: 137,
        reason: 'Error',
        startedAt,
        finishedAt: this.nowIso(),
        containerID: runtime.containerID ?? '',
      },
    };
    runtime.state = { waiting: { reason: 'PostStartHookError', message } };
    runtime.started = false;
    runtime.ready = false;
    c.finishedAtMs = this.now();
    this.publish();
    this.after(this.services.timing.containerStartMs, () => this.startContainer(c));
  }

  /**
   * The eviction manager's local storage check (eviction_manager.go localStorageEviction): a
   * container writing more than its ephemeral-storage limit gets the whole pod evicted at the next
   * monitoring tick after it crossed the limit.
   */
  private watchEphemeralStorage(c: ContainerTracking, knobs: ContainerKnobs): void {
    const limit = (c.spec.resources?.limits as Record<string, string> | undefined)?.['ephemeral-storage'];
    if (limit === undefined || parseQuantity(knobs.ephemeralStorageUsage) <= parseQuantity(limit)) return;
    const filledAfter = knobs.runMs ?? this.services.timing.crashAfterMs;
    // eviction/helpers.go containerEphemeralStorageMessageFmt (the limit's String(), %q).
    this.containerAfter(c, filledAfter + EVICTION_MONITORING_MS, () =>
      this.evict(
        `Container ${c.runtime.name} exceeded its local ephemeral storage limit ${JSON.stringify(limit)}. `,
        'Evicted',
        true,
      ),
    );
  }

  /**
   * eviction_manager.go evictPod: an Evicted event, every container killed, the pod Failed for good;
   * the node shutdown manager the same without the event, with its own reason. Each container exits
   * with its `sigterm-exit-code` (137 when unset). A pod evicted for its own local-storage limit
   * whose containers all exit 0 ends as the real kubelet v1.37.2 left it (fixtures/evicted-exit-0,
   * kubernetes#120182, #141483): phase Succeeded, no reason, message or DisruptionTarget; the
   * Evicted event is the only trace.
   */
  private evict(message: string, reason = 'Evicted', ownLimit = false): void {
    if (reason === 'Evicted') this.podEvent('Warning', 'Evicted', message);
    let exitedZero = true;
    for (const c of [...this.initContainers, ...this.containers]) {
      this.cancelContainerTimers(c);
      const runtime = c.runtime;
      if (!('running' in runtime.state)) continue;
      this.event(c, 'Normal', 'Killing', `Stopping container ${runtime.name}`);
      const exitCode = readKnobs(this.pod.metadata.annotations, runtime.name, runtime.init).sigtermExitCode ?? 137;
      if (exitCode !== 0) exitedZero = false;
      runtime.state = {
        terminated: {
          exitCode,
          reason: exitCode === 0 ? 'Completed' : 'Error',
          startedAt: runtime.state.running.startedAt,
          finishedAt: this.nowIso(),
          containerID: runtime.containerID ?? '',
        },
      };
      runtime.ready = false;
      runtime.started = false;
    }
    this.view.evicted = { message, at: this.nowIso(), reason, ...(ownLimit && exitedZero ? { quiet: true } : {}) };
    this.publish();
    this.stop();
  }

  private exit(c: ContainerTracking, exitCode: number, reason: string): void {
    this.cancelContainerTimers(c);
    const runtime = c.runtime;
    const startedAt = 'running' in runtime.state ? runtime.state.running.startedAt : this.nowIso();
    runtime.state = {
      terminated: { exitCode, reason, startedAt, finishedAt: this.nowIso(), containerID: runtime.containerID ?? '' },
    };
    runtime.started = false;
    c.finishedAtMs = this.now();
    if (runtime.init && !runtime.sidecar && exitCode === 0) {
      runtime.succeeded = true;
      runtime.ready = true;
      this.publish();
      const next = c.onSucceeded;
      this.after(this.services.timing.containerStartMs, () => next?.());
      return;
    }
    runtime.ready = false;
    this.publish();
    // A sidecar is restarted whatever the pod's restartPolicy says.
    const restartPolicy = runtime.sidecar ? 'Always' : (this.pod.spec?.restartPolicy ?? 'Always');
    if (restartPolicy === 'Never' || (restartPolicy === 'OnFailure' && exitCode === 0)) return;
    // The kubelet notices the exit (PLEG) and restarts the container, subject to back-off.
    this.after(this.services.timing.containerStartMs, () => this.startContainer(c));
  }

  private probeHost(c: ContainerTracking): ProbeHost {
    return {
      now: () => this.now(),
      startedAtMs: c.startedAtMs ?? this.now(),
      podIP: this.podIP,
      containerName: c.runtime.name,
      ports: (c.spec.ports as ProbeHost['ports'] | undefined) ?? [],
      after: (ms, callback) => this.containerAfter(c, ms, callback),
      event: (type, reason, message) => this.event(c, type, reason, message),
      isReady: () => c.runtime.ready,
      setReady: (ready) => {
        c.runtime.ready = ready;
        this.publish();
      },
      kill: () => this.exit(c, 137, 'Error'),
    };
  }

  // ---- plumbing ----

  private toWaiting(c: ContainerTracking, reason: string, message?: string): void {
    const runtime = c.runtime;
    if ('terminated' in runtime.state) runtime.lastState = { terminated: runtime.state.terminated };
    runtime.state = message === undefined ? { waiting: { reason } } : { waiting: { reason, message } };
    runtime.ready = false;
    runtime.started = false;
  }

  private writeLogs(container: string, stdout: string | undefined): void {
    if (stdout === undefined) return;
    const fresh = this.fresh();
    if (!fresh || fresh.metadata.annotations?.[LOGS_ANNOTATION_PREFIX + container] === stdout) return;
    fresh.metadata.annotations = {
      ...(fresh.metadata.annotations ?? {}),
      [LOGS_ANNOTATION_PREFIX + container]: stdout,
    };
    delete fresh.metadata.resourceVersion;
    this.pod = this.services.store.update(fresh);
  }

  private publish(): void {
    if (this.stopped || this.terminating) return;
    const fresh = this.fresh();
    if (!fresh) return this.stop();
    this.pod = fresh;
    const status = buildPodStatus(fresh, this.view, this.memory, this.nowIso());
    if (jsonEqual(status, fresh.status)) return;
    this.pod = this.services.store.updateStatus({
      ...fresh,
      metadata: { ...fresh.metadata, resourceVersion: undefined },
      status,
    });
  }

  private fresh(): KubeObject | undefined {
    const found = this.services.store.get('Pod', this.pod.metadata.namespace ?? 'default', this.pod.metadata.name);
    return found && found.metadata.uid === this.uid ? found : undefined;
  }

  private event(c: ContainerTracking, type: EventType, reason: string, message: string): void {
    this.services.recorder.record(this.pod, this.source, type, reason, message, c.runtime.fieldPath);
  }

  private podEvent(type: EventType, reason: string, message: string): void {
    this.services.recorder.record(this.pod, this.source, type, reason, message);
  }

  /** format.Pod: name_namespace(uid). */
  private podRef(): string {
    return `${this.pod.metadata.name}_${this.pod.metadata.namespace}(${this.uid})`;
  }

  private after(ms: number, callback: () => void): void {
    if (this.stopped || this.terminating) return;
    const cancel = this.services.clock.after(ms, () => {
      this.timers.delete(cancel);
      if (!this.stopped) callback();
    });
    this.timers.add(cancel);
  }

  private containerAfter(c: ContainerTracking, ms: number, callback: () => void): void {
    if (this.stopped || this.terminating) return;
    const cancel = this.services.clock.after(ms, () => {
      c.timers.delete(cancel);
      if (!this.stopped) callback();
    });
    c.timers.add(cancel);
  }

  private cancelContainerTimers(c: ContainerTracking): void {
    for (const cancel of c.timers) cancel();
    c.timers.clear();
  }

  private now(): number {
    return this.services.clock.now().getTime();
  }

  private nowIso(): string {
    return this.services.clock.nowIso();
  }
}

function defaultStartError(spec: ContainerSpec): string {
  const command = (spec.command as string[] | undefined)?.[0] ?? 'app';
  return (
    'failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create failed: ' +
    `unable to start container process: exec: "${command}": executable file not found in $PATH: unknown`
  );
}
