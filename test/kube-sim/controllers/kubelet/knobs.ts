// Per-container behaviour read from `sim.kguard.dev/*` pod annotations (set on the Deployment's
// pod template). `sim.kguard.dev/<knob>.<container>` targets one container; the bare
// `sim.kguard.dev/<knob>` applies to every app container (never to init containers).
// README.md, "Controllers & scenario", documents each knob.

export const KNOB_PREFIX = 'sim.kguard.dev/';
/** Written by the kubelet once a container ran; the API server serves it as the container's log. */
export const LOGS_ANNOTATION_PREFIX = 'sim.kguard.dev/logs.';

export interface ContainerKnobs {
  /** The container exits with this code after `runMs`. */
  exitCode?: number;
  /** The container is OOM-killed (exit 137, reason OOMKilled) after `runMs`. */
  oomKill: boolean;
  /** Only the first N instances misbehave (exit / OOM); later restarts run normally. */
  crashCount?: number;
  runMs?: number;
  /** The runtime fails to start the process (RunContainerError / StartError). */
  startError?: string;
  readiness: 'pass' | 'fail';
  readinessDelayMs?: number;
  liveness: 'pass' | 'fail';
  /** What the container prints; becomes the pod's `sim.kguard.dev/logs.<container>` annotation. */
  stdout?: string;
  /** The container's lifecycle.postStart hook fails, printing this (empty for `fail`). */
  postStartFailure?: string;
  /** What the container writes to its writable layer, as a quantity ('2Gi'), `run-seconds` after it starts. */
  ephemeralStorageUsage?: string;
  /** The code the container exits with when the kubelet stops it (SIGTERM); 137 when unset. */
  sigtermExitCode?: number;
}

export function readKnobs(
  annotations: Record<string, string> | undefined,
  container: string,
  isInit: boolean,
): ContainerKnobs {
  const knob = (name: string): string | undefined =>
    annotations?.[`${KNOB_PREFIX}${name}.${container}`] ??
    (isInit ? undefined : annotations?.[`${KNOB_PREFIX}${name}`]);
  const number = (name: string): number | undefined => {
    const value = knob(name);
    if (value === undefined) return undefined;
    const parsed = Number(value);
    return Number.isFinite(parsed) ? parsed : undefined;
  };
  const seconds = (name: string): number | undefined => {
    const value = number(name);
    return value === undefined ? undefined : value * 1000;
  };
  const startError = knob('start-error');
  const postStart = knob('post-start');
  return {
    exitCode: number('exit-code'),
    oomKill: knob('oom-kill') === 'true',
    crashCount: number('crash-count'),
    runMs: seconds('run-seconds'),
    startError: startError === undefined || startError === 'false' ? undefined : startError,
    readiness: knob('readiness') === 'fail' ? 'fail' : 'pass',
    readinessDelayMs: seconds('readiness-delay-seconds'),
    liveness: knob('liveness') === 'fail' ? 'fail' : 'pass',
    stdout: knob('stdout'),
    postStartFailure:
      postStart === undefined || postStart === 'false'
        ? undefined
        : postStart === 'fail' || postStart === 'true'
          ? ''
          : postStart,
    ephemeralStorageUsage: knob('ephemeral-storage-usage'),
    sigtermExitCode: number('sigterm-exit-code'),
  };
}
