// The typed face of kubectl: every method runs the real binary through `exec`, with a deadline,
// and returns parsed results. Failures become KubectlError with a one-paragraph diagnosis. One
// runner (client/runner.ts) holds the process side; each capability of the Kubectl interface
// (kubectl/types.ts) is its own file in client/.
import type { Exec, StreamExec } from './process/exec.js';
import { applyFamily } from './client/apply-family.js';
import { listWatch } from './client/list-watch.js';
import { objectReads } from './client/reads.js';
import { KubectlRunner } from './client/runner.js';
import { conditionalWrites } from './client/writes.js';
import { RESTORE_FIELD_MANAGER } from './output/parse.js';
import type { Connection, Kubectl } from './types.js';

/** The one way to get a kubectl: the CLI, the journal commands and the library all build it here. */
export function createKubectl(exec: Exec, connection: Connection, stream?: StreamExec): Kubectl {
  const runner = new KubectlRunner(exec, connection, stream);
  return Object.assign(runner, applyFamily(runner), objectReads(runner), conditionalWrites(runner), listWatch(runner));
}

export { RESTORE_FIELD_MANAGER };
