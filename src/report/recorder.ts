// The first reporter every event meets: it sanitises the event (report/safety/sanitize.ts: Secret values,
// control characters, CI workflow commands) so the reporters behind it can trust their input,
// passes it on, and remembers what the end of a run needs: the log lines for the JSON report,
// and which objects the apply changed that are not restored yet, in case a second signal ends
// the run at once.
import { isChangeKind } from '../objects/compare.js';
import { describeObject, objectKey, type ObjectRef } from '../objects/model.js';
import type { Reporter, RunEvent } from '../model/events.js';
import { formatEvent } from './format/format.js';
import type { Redactor } from './safety/redact.js';
import { sanitizeDeep } from './safety/sanitize.js';

export class RunRecorder implements Reporter {
  readonly messages: string[] = [];
  /** The run's id once its journal is written: what `kguard rollback` needs. */
  runId: string | undefined;
  /** The apply may have written: its journal is written (or, without one, kubectl apply ran). Before it, a signal restores nothing. */
  applyBegun = false;
  private readonly changed = new Map<string, ObjectRef>();
  private closed = false;

  constructor(
    private readonly inner: Reporter,
    private readonly redactor?: Redactor,
  ) {}

  emit(untrusted: RunEvent): void {
    // The kind is kguard's own word, never cluster text: it stays as it is, whatever redaction does.
    const event = { ...sanitizeDeep(untrusted, this.redactor), kind: untrusted.kind } as RunEvent;
    // The report's messages are the run's story, the same with or without --verbose.
    if (event.kind !== 'kubectl') this.messages.push(formatEvent(event).text);
    if (event.kind === 'changes') {
      for (const object of event.objects) {
        if (isChangeKind(object.change)) this.changed.set(objectKey(object.ref), object.ref);
      }
    }
    if (event.kind === 'restored') this.changed.delete(objectKey(event.object));
    if (event.kind === 'journal') this.runId = event.runId;
    if (
      event.kind === 'journal' ||
      event.kind === 'applied' ||
      event.kind === 'apply-failed' ||
      event.kind === 'changes'
    )
      this.applyBegun = true;
    this.inner.emit(event);
  }

  /** Once: every path that ends a run closes it, and a job summary must not be written twice. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.inner.close();
  }

  /** Objects this run changed and has not put back, as a person reads them. */
  notRestored(): string[] {
    return [...this.changed.values()].map(describeObject);
  }
}
