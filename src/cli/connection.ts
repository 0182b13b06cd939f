// The kubectl connection of the commands that read runs from the cluster (status, rollback,
// unlock, forget, history, undo): --kubeconfig and --context, and the connection flags typed
// natively (--as, --token, --server…), the same as the run had.
import { missingKubeconfig } from '../api/environment.js';
import { InputError } from '../errors.js';
import { splitPassThrough } from '../kubectl/passthrough.js';
import type { Session } from './session.js';

/** The connection flags for every kubectl call of the command; a missing kubeconfig is refused. */
export function commandConnection(raw: { kubeconfig?: string; context?: string }, session: Pick<Session, 'kubectlFlags'>): string[] {
  const connectionArgs = [
    ...(raw.kubeconfig ? [`--kubeconfig=${raw.kubeconfig}`] : []),
    ...(raw.context ? [`--context=${raw.context}`] : []),
    ...splitPassThrough(session.kubectlFlags).connection,
  ];
  const missing = missingKubeconfig(connectionArgs, process.env);
  if (missing) throw new InputError(missing);
  return connectionArgs;
}
