// The run's target, pinned. kubectl reads the kubeconfig anew at every call: if someone switches
// its current-context while kguard watches (kubectl config use-context), the restore would go to
// another cluster. So the context, its cluster and its user are resolved once, at the start, and
// passed on every call. Pure.
import type { Target } from './types.js';

interface MinifiedConfig {
  'current-context'?: string;
  contexts?: Array<{ name?: string; context?: { cluster?: string; user?: string; namespace?: string } }>;
}

/** `kubectl config view --minify -o json`: the current context and what it names. */
export function targetOf(stdout: string): Target | undefined {
  let config: MinifiedConfig;
  try {
    config = JSON.parse(stdout) as MinifiedConfig;
  } catch {
    return undefined;
  }
  const name = config['current-context'];
  const entry = config.contexts?.find((context) => context.name === name) ?? config.contexts?.[0];
  if (!name || !entry?.context?.cluster) return undefined;
  return {
    context: name,
    cluster: entry.context.cluster,
    user: entry.context.user ?? '',
    namespace: entry.context.namespace || 'default',
  };
}

/**
 * The connection flags with the target pinned: --context, --cluster and --user, unless the
 * command line already names them (or names the server itself, which then decides).
 */
export function pinnedArgs(connectionArgs: readonly string[], target: Target): string[] {
  const given = (flag: string) => connectionArgs.some((arg) => arg === flag || arg.startsWith(`${flag}=`));
  const pinned = [...connectionArgs];
  if (!given('--context')) pinned.push(`--context=${target.context}`);
  if (!given('--cluster') && !given('--server')) pinned.push(`--cluster=${target.cluster}`);
  if (target.user && !given('--user') && !given('--token') && !given('--username'))
    pinned.push(`--user=${target.user}`);
  return pinned;
}
