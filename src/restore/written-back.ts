// The one "written back" predicate: every count of restored objects (the apply's outcome, `kguard
// rollback`, `kguard undo`) and the tracking after a restore ask it. Pure, and light enough for
// the exit code's module.
import type { RestoreResult } from '../model/result.js';

/** Written back: put back, deleted, created again, or deleted and created from its copy (replaced). */
export function writtenBack(result: RestoreResult | undefined): boolean {
  return result !== undefined && result.status !== 'kept' && result.status !== 'failed';
}
