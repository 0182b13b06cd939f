// Readiness and liveness probes as the kubelet's prober runs them (every periodSeconds after
// initialDelaySeconds, failureThreshold before acting), with the prober's failure texts. Whether a
// probe passes comes from the `sim.kguard.dev/readiness|liveness|readiness-delay-seconds` knobs.

import type { EventType } from '../events.js';
import type { ContainerKnobs } from './knobs.js';

export interface Probe {
  httpGet?: { path?: string; port?: number | string; scheme?: string };
  tcpSocket?: { port?: number | string };
  exec?: { command?: string[] };
  grpc?: { port?: number };
  initialDelaySeconds?: number;
  periodSeconds?: number;
  failureThreshold?: number;
}

/** What a probe needs from the pod worker, scoped to one running container. */
export interface ProbeHost {
  now(): number;
  startedAtMs: number;
  podIP: string;
  containerName: string;
  ports: { name?: string; containerPort?: number }[];
  /** A timer cancelled when the container stops. */
  after(ms: number, callback: () => void): void;
  event(type: EventType, reason: string, message: string): void;
  isReady(): boolean;
  setReady(ready: boolean): void;
  /** Kill the container (exit 137) so it is restarted. */
  kill(): void;
}

export function startReadinessProbe(
  host: ProbeHost,
  probe: Probe,
  knobs: ContainerKnobs,
  defaultDelayMs: number,
): void {
  const period = (probe.periodSeconds ?? 10) * 1000;
  const threshold = probe.failureThreshold ?? 3;
  const readyAfter = (probe.initialDelaySeconds ?? 0) * 1000 + (knobs.readinessDelayMs ?? defaultDelayMs);
  let failures = 0;
  const tick = () => {
    if (knobs.readiness === 'pass' && host.now() - host.startedAtMs >= readyAfter) {
      failures = 0;
      if (!host.isReady()) host.setReady(true);
    } else {
      failures++;
      const output = knobs.readiness === 'fail' ? failureOutput(host, probe, 503) : refusedOutput(host, probe);
      host.event('Warning', 'Unhealthy', `Readiness probe failed: ${output}`);
      if (host.isReady() && failures >= threshold) host.setReady(false);
    }
    host.after(period, tick);
  };
  host.after((probe.initialDelaySeconds ?? 0) * 1000, tick);
}

/** Only started for a failing liveness knob: a passing liveness probe changes nothing. */
export function startFailingLivenessProbe(host: ProbeHost, probe: Probe): void {
  const period = (probe.periodSeconds ?? 10) * 1000;
  const threshold = probe.failureThreshold ?? 3;
  let failures = 0;
  const tick = () => {
    failures++;
    host.event('Warning', 'Unhealthy', `Liveness probe failed: ${failureOutput(host, probe, 500)}`);
    if (failures >= threshold) {
      host.event('Normal', 'Killing', `Container ${host.containerName} failed liveness probe, will be restarted`);
      host.kill();
      return;
    }
    host.after(period, tick);
  };
  host.after((probe.initialDelaySeconds ?? 0) * 1000 + period, tick);
}

/** The prober's output when the endpoint answers badly (exec probes: the command's empty output). */
function failureOutput(host: ProbeHost, probe: Probe, statusCode: number): string {
  if (probe.httpGet) return `HTTP probe failed with statuscode: ${statusCode}`;
  if (probe.tcpSocket)
    return `dial tcp ${host.podIP}:${portOf(host, probe.tcpSocket.port)}: connect: connection refused`;
  if (probe.grpc) return `timeout: failed to connect service ":${probe.grpc.port}" within 1s`;
  return '';
}

/** The prober's output while nothing listens yet (slow start). */
function refusedOutput(host: ProbeHost, probe: Probe): string {
  if (!probe.httpGet) return failureOutput(host, probe, 503);
  const port = portOf(host, probe.httpGet.port);
  const scheme = (probe.httpGet.scheme ?? 'HTTP').toLowerCase();
  return `Get "${scheme}://${host.podIP}:${port}${probe.httpGet.path ?? '/'}": dial tcp ${host.podIP}:${port}: connect: connection refused`;
}

function portOf(host: ProbeHost, port: number | string | undefined): string {
  if (typeof port === 'string') {
    const named = host.ports.find((candidate) => candidate.name === port);
    if (named?.containerPort) return String(named.containerPort);
  }
  return String(port ?? 80);
}
