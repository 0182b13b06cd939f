// The first reporter every event meets: it sanitises the event (report/sanitize.ts: Secret values,
// control characters, CI workflow commands) so the reporters behind it can trust their input,
// passes it on, and remembers what the end of a run needs: the log lines for the JSON report,
// which rollouts are in flight, and how far the run got, if it is interrupted.
import { workloadKey, type WorkloadRef } from '../manifests/parse.js';
import type { Reporter, RunEvent } from './events.js';
import { formatEvent } from './format.js';
import type { Redactor } from './redact.js';
import { sanitizeDeep } from './sanitize.js';

export interface InFlight {
  workload: WorkloadRef;
  /** The revision live before the apply; undefined for a Deployment the apply created. */
  fromRevision?: number;
}

export class RunRecorder implements Reporter {
  readonly messages: string[] = [];
  private readonly inFlight = new Map<string, InFlight>();
  /** The kinds of event seen so far: how far the run got. */
  readonly seen = new Set<RunEvent['kind']>();

  constructor(
    private readonly inner: Reporter,
    private readonly redactor?: Redactor,
  ) {}

  emit(untrusted: RunEvent): void {
    const event = sanitizeDeep(untrusted, this.redactor);
    this.seen.add(event.kind);
    this.messages.push(formatEvent(event).text);
    if (event.kind === 'tracking') {
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
