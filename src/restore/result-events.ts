// Each restored object's one line: what was put back, kept or failed, as a run event.
import type { Reporter } from '../model/events.js';
import type { RestoreStep } from './steps.js';
import type { RestoreResult } from '../model/result.js';

/** Says how one object's restore ended. */
export function reportResult(step: RestoreStep, result: RestoreResult, reporter: Reporter): void {
  switch (result.status) {
    case 'restored':
    case 'deleted':
    case 'recreated':
    case 'replaced':
      reporter.emit({
        kind: 'restored',
        object: step.ref,
        action: result.status,
        differences: result.differences,
        notes: result.notes,
      });
      return;
    case 'kept':
      reporter.emit({
        kind: 'restore-kept',
        object: step.ref,
        reason: result.reason,
        detail: result.detail,
        commands: result.commands,
      });
      return;
    case 'failed':
      reporter.emit({
        kind: 'restore-failed',
        object: step.ref,
        reason: result.reason,
        commands: result.commands,
        copyFile: result.copyFile,
      });
  }
}
