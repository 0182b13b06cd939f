// The kubectl connection of the commands that read runs from the cluster (status, rollback,
// unlock, forget, history, undo): --kubeconfig and --context, and the connection flags typed
// natively (--as, --token, --server…), the same as the run had.
import { missingKubeconfig } from '../api/environment.js';
import { InputError } from '../errors.js';
import { splitPassThrough } from '../kubectl/passthrough.js';
import type { Kubectl } from '../kubectl/types.js';
import type { KubectlCall, Reporter } from '../model/events.js';
import { DEFAULTS } from '../model/options.js';
import type { Session } from './session.js';

/** The connection flags for every kubectl call of the command; a missing kubeconfig is refused. */
export function commandConnection(
  raw: { kubeconfig?: string; context?: string },
  session: Pick<Session, 'kubectlFlags'>,
): string[] {
  const connectionArgs = [
    ...(raw.kubeconfig ? [`--kubeconfig=${raw.kubeconfig}`] : []),
    ...(raw.context ? [`--context=${raw.context}`] : []),
    ...splitPassThrough(session.kubectlFlags).connection,
  ];
  const missing = missingKubeconfig(connectionArgs, process.env);
  if (missing) throw new InputError(missing);
  return connectionArgs;
}

/**
 * The kubectl of a run command (status, rollback, unlock, forget, history, undo, and each context
 * of a fleet's): every call with a deadline, Secret values it reads learnt for redaction, its raw
 * calls through one kubectl proxy (close() ends it), and with -v every call said as it ends.
 */
export async function commandKubectl(
  connectionArgs: readonly string[],
  session: Pick<Session, 'redactor' | 'verbosity'>,
  recorder: Reporter,
  options: { watches: boolean },
): Promise<Kubectl & { close(): void }> {
  const [{ connectKubectl }, { RETRY_DELAYS_MS }, { systemClock }, { secretValuesOfObjects }] = await Promise.all([
    import('../kubectl/connect.js'),
    import('../kubectl/transient.js'),
    import('../clock.js'),
    import('../report/safety/redact.js'),
  ]);
  const trace =
    session.verbosity === 'verbose'
      ? { now: () => systemClock.now(), onCall: (call: KubectlCall) => recorder.emit({ kind: 'kubectl', ...call }) }
      : undefined;
  return connectKubectl(
    {
      binary: process.env.KGUARD_KUBECTL || 'kubectl',
      connectionArgs,
      requestTimeout: `${DEFAULTS.requestTimeoutMs / 1000}s`,
      readDeadlineMs: 60_000,
      retry: { delaysMs: RETRY_DELAYS_MS, sleep: systemClock.sleep },
      observe: (objects) => {
        for (const value of secretValuesOfObjects(objects)) session.redactor.addValue(value);
      },
    },
    { trace, watches: options.watches },
  );
}
