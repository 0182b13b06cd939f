// Which process runs a kguard run, so that another kguard on the same machine can tell a live run
// from a dead one at once, instead of waiting for its Lease to stand still. Written into the
// journal and the Leases; read by `kguard status`, `rollback`, `unlock`, `forget`, and by a run
// waiting for a Lease.
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';

export interface RunHolder {
  host: string;
  pid: number;
  /** The process's start time in clock ticks since boot (Linux /proc/PID/stat field 22): tells a reused pid apart. */
  started?: string;
}

/** What a probe of a holder finds: its process running, gone, or on another machine (unknowable here). */
export type HolderState = 'running' | 'gone' | 'elsewhere';
export type HolderProbe = (holder: RunHolder) => HolderState;

export function thisProcess(): RunHolder {
  const started = processStart(process.pid);
  return { host: hostname(), pid: process.pid, ...(started ? { started } : {}) };
}

export const probeHolder: HolderProbe = (holder) => {
  if (holder.host !== hostname()) return 'elsewhere';
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    // EPERM: a process of another user has the pid; it cannot be kguard's run of this user... but
    // it may be (sudo): call it running, the safe side.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return 'gone';
  }
  if (!holder.started) return 'running';
  const started = processStart(holder.pid);
  return started === undefined || started === holder.started ? 'running' : 'gone';
};

/** Field 22 of /proc/PID/stat (after the command name, which may hold spaces and parentheses). */
function processStart(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

/** The holder annotations of a run's Leases. */
export const HOLDER_HOST_ANNOTATION = 'kguard.dev/holder-host';
export const HOLDER_PID_ANNOTATION = 'kguard.dev/holder-pid';

export function holderAnnotations(holder: RunHolder | undefined): Record<string, string> {
  if (!holder) return {};
  return {
    [HOLDER_HOST_ANNOTATION]: holder.host,
    [HOLDER_PID_ANNOTATION]: holder.started ? `${holder.pid}/${holder.started}` : String(holder.pid),
  };
}

export function holderOfAnnotations(annotations: Record<string, string> | undefined): RunHolder | undefined {
  const host = annotations?.[HOLDER_HOST_ANNOTATION];
  const [pid, started] = (annotations?.[HOLDER_PID_ANNOTATION] ?? '').split('/');
  if (!host || !pid || !/^\d+$/.test(pid)) return undefined;
  return { host, pid: Number(pid), ...(started ? { started } : {}) };
}
