// Passes events on to the real reporter and remembers what the end of a run needs: the log lines
// for the JSON report, and which rollouts are in flight if the run is interrupted.
import { workloadKey, type WorkloadRef } from '../manifests/parse.js';
import type { Reporter, RunEvent } from './events.js';
import { formatEvent } from './format.js';

export interface InFlight {
  workload: WorkloadRef;
  /** The revision live before the apply; undefined for a Deployment the apply created. */
  fromRevision?: number;
}

export class RunRecorder implements Reporter {
  readonly messages: string[] = [];
  private readonly inFlight = new Map<string, InFlight>();

  constructor(private readonly inner: Reporter) {}

  emit(event: RunEvent): void {
    this.messages.push(formatEvent(event).text);
    // The interrupt message (cli/main.ts) prints Deployment undo commands; other kinds are restored from their copies.
    if (event.kind === 'tracking' && event.workload.kind === 'Deployment') {
      this.inFlight.set(workloadKey(event.workload), { workload: event.workload, fromRevision: event.fromRevision });
    }
    if (event.kind === 'rolled-back' || event.kind === 'healthy') this.inFlight.delete(workloadKey(event.workload));
    this.inner.emit(event);
  }

  close(): void {
    this.inner.close();
  }

  /** Rollouts started by this run that have not ended healthy or rolled back. */
  unfinished(): InFlight[] {
    return [...this.inFlight.values()];
  }
}
