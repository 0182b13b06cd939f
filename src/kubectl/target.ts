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

/**
 * Whether the first call (`BINARY config view --minify -o json`, which reads only the kubeconfig)
 * shows that the binary is not kubectl, or cannot be started; the sentence that says so, naming
 * it, or undefined. kubectl answers this call with a kubeconfig (`"kind": "Config"`), or fails with
 * its own `error: ...` line (cmdutil.CheckErr), possibly after klog lines (`E1202 …`).
 */
export function notKubectl(
  result: { exitCode: number; stdout: string; stderr: string; spawnError?: string },
  binary: string,
): string | undefined {
  const named = binary === 'kubectl' ? 'kubectl' : `KGUARD_KUBECTL=${binary}`;
  const next =
    binary === 'kubectl'
      ? 'install kubectl and put it on PATH, or set KGUARD_KUBECTL to its path'
      : 'set KGUARD_KUBECTL to the path of kubectl (kubectl version --client), or unset it to use kubectl from PATH';
  if (result.spawnError)
    return `${named} could not be started (${result.spawnError === 'ENOENT' ? `ENOENT: ${binary === 'kubectl' ? 'not on PATH' : 'no such file'}` : result.spawnError}). Next: ${next}; nothing was applied.`;
  if (result.exitCode === 0) {
    let kind: unknown;
    try {
      kind = (JSON.parse(result.stdout) as { kind?: unknown }).kind;
    } catch {
      kind = undefined;
    }
    if (kind === 'Config') return undefined;
  } else if (/^error: /m.test(result.stderr)) return undefined;
  const said = (result.stderr || result.stdout).trim().split('\n')[0]?.slice(0, 200) || 'nothing';
  return `${binary === 'kubectl' ? 'kubectl on PATH' : named} does not answer as kubectl does: \`config view --minify -o json\` exited ${result.exitCode} and printed ${said === 'nothing' ? 'nothing' : JSON.stringify(said)}. Next: ${next}; nothing was applied.`;
}
