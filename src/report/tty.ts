// A person at a terminal: an ora spinner that shows every rollout still in progress, with each
// finished step printed above it.
import { Chalk, type ChalkInstance } from 'chalk';
import ora, { type Ora } from 'ora';
import { describeObject, objectKey } from '../objects/model.js';
import type { Reporter, RunEvent } from '../model/events.js';
import { formatEvent } from './format/format.js';
import { paint } from './plain.js';

export class TtyReporter implements Reporter {
  private readonly chalk: ChalkInstance;
  private readonly spinner: Ora;
  private readonly inProgress = new Map<string, string>();

  constructor(
    private readonly stream: NodeJS.WriteStream,
    colour: boolean,
  ) {
    this.chalk = new Chalk({ level: colour ? 1 : 0 });
    // Without colour (NO_COLOR, FORCE_COLOR=0) the spinner is uncoloured too.
    this.spinner = ora({ stream, color: colour ? 'cyan' : false, discardStdin: false });
  }

  emit(event: RunEvent): void {
    if (event.kind === 'progress') {
      this.inProgress.set(objectKey(event.workload), formatEvent(event).text);
      this.refresh();
      return;
    }
    if ('workload' in event && event.workload && event.kind !== 'pod-problem' && event.kind !== 'note')
      this.inProgress.delete(objectKey(event.workload));
    // A verify Job's progress ends with its check.
    const checked = event.kind === 'verify-passed' || event.kind === 'verify-failed' ? event.outcome.check : undefined;
    if (checked?.type === 'job' && checked.job) this.inProgress.delete(objectKey(checked.job));
    if (event.kind === 'tracking')
      this.inProgress.set(objectKey(event.workload), `${describeObject(event.workload)}: starting`);
    if (this.spinner.isSpinning) this.spinner.clear();
    this.stream.write(`${paint(this.chalk, formatEvent(event))}\n`);
    this.refresh();
  }

  close(): void {
    this.inProgress.clear();
    this.spinner.stop();
  }

  private refresh(): void {
    if (this.inProgress.size === 0) {
      if (this.spinner.isSpinning) this.spinner.stop();
      return;
    }
    this.spinner.text = [...this.inProgress.values()].join('\n  ');
    if (!this.spinner.isSpinning) this.spinner.start();
    else this.spinner.render();
  }
}
