// Sorts the kubectl flags given after `--`: a flag that says which cluster or who must reach every
// kubectl call kguard makes (or kguard would watch another cluster than the one it applied to);
// a flag that changes what is applied reaches the dry runs and the apply; a few are kguard's own
// business and are refused with a message saying where to put them. Pure.
import { InputError } from '../errors.js';

export interface PassThrough {
  /** kubectl global flags for every call: --context, --kubeconfig, --as, --server, --token... */
  connection: string[];
  /** -n/--namespace given after --. */
  namespace?: string;
  /** kubectl apply flags for the dry runs and the apply (in order). */
  apply: string[];
  /** The subset of `apply` that decides which objects kubectl reads (-l/--selector). */
  selection: string[];
  /** --dry-run=client|server after --: a preview, nothing changes. */
  dryRun?: 'client' | 'server';
  /** --prune (and its companions) is in `apply`. */
  prune: boolean;
  /** --server-side given after --. */
  serverSide: boolean;
}

// kubectl's global flags (kubectl options) that choose the cluster, the credentials or the
// identity. The value-taking ones consume the next word when written without `=`.
const CONNECTION_FLAGS_WITH_VALUE = new Set([
  '--context',
  '--kubeconfig',
  '--cluster',
  '--user',
  '--as',
  '--as-group',
  '--as-uid',
  '-s',
  '--server',
  '--token',
  '--certificate-authority',
  '--client-certificate',
  '--client-key',
  '--tls-server-name',
  '--username',
  '--password',
  '--cache-dir',
]);
const CONNECTION_BOOLEANS = new Set(['--insecure-skip-tls-verify', '--disable-compression', '--match-server-version']);
const SELECTION_FLAGS_WITH_VALUE = new Set(['-l', '--selector']);
// Other kubectl apply flags that take a value as the next word (apply --help).
const APPLY_FLAGS_WITH_VALUE = new Set([
  '--field-manager',
  '--validate',
  '--cascade',
  '--grace-period',
  '--timeout',
  '--prune-allowlist',
  '--applyset',
  '--template',
  '--subresource',
  '-v',
  '--v',
  '--vmodule',
]);
const REFUSED: Record<string, string> = {
  '-f': 'name manifests with -f before --, where kguard reads them',
  '--filename': 'name manifests with -f before --, where kguard reads them',
  '-k': 'pass -k before --, where kguard renders it',
  '--kustomize': 'pass -k before --, where kguard renders it',
  '-R': 'pass -R before --',
  '--recursive': 'pass -R before --',
  '-o': "kguard reads kubectl's output itself; use kguard's own --output json",
  '--output': "kguard reads kubectl's output itself; use kguard's own --output json",
  '--request-timeout': 'kguard sets a deadline on every kubectl call itself (--timeout, --rollback-timeout)',
  '--edit-last-applied': 'not an apply kguard can watch',
  '--wait': 'kguard waits for every changed object itself',
};

export function splitPassThrough(args: readonly string[]): PassThrough {
  const result: PassThrough = { connection: [], apply: [], selection: [], prune: false, serverSide: false };
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index] as string;
    const [flag, inlineValue] = splitFlag(arg);
    const refusal = REFUSED[flag];
    if (refusal) throw new InputError(`${arg} after -- is not passed to kubectl: ${refusal}.`);
    const takeValue = (): string => {
      if (inlineValue !== undefined) return inlineValue;
      const next = args[index + 1];
      if (next === undefined) throw new InputError(`${flag} after -- needs a value.`);
      index += 1;
      return next;
    };
    if (flag === '-n' || flag === '--namespace') {
      const namespace = takeValue();
      if (result.namespace !== undefined && result.namespace !== namespace) {
        throw new InputError(`-n ${result.namespace} and -n ${namespace} after -- contradict each other; give one namespace.`);
      }
      result.namespace = namespace;
    } else if (CONNECTION_FLAGS_WITH_VALUE.has(flag)) {
      result.connection.push(`${flag}=${takeValue()}`);
    } else if (CONNECTION_BOOLEANS.has(flag)) {
      result.connection.push(arg);
    } else if (SELECTION_FLAGS_WITH_VALUE.has(flag)) {
      const selector = `${flag}=${takeValue()}`;
      result.selection.push(selector);
      result.apply.push(selector);
    } else if (flag === '--dry-run') {
      const strategy = inlineValue ?? 'client';
      if (strategy === 'none') continue;
      if (strategy !== 'client' && strategy !== 'server') {
        throw new InputError(`--dry-run=${strategy} after -- is not one of none, client, server.`);
      }
      result.dryRun = strategy;
    } else {
      if (flag === '--prune') result.prune = inlineValue !== 'false';
      if (flag === '--server-side') result.serverSide = inlineValue !== 'false';
      result.apply.push(APPLY_FLAGS_WITH_VALUE.has(flag) && inlineValue === undefined ? `${flag}=${takeValue()}` : arg);
    }
  }
  return result;
}

function splitFlag(arg: string): [string, string | undefined] {
  if (!arg.startsWith('-')) return [arg, undefined];
  const equals = arg.indexOf('=');
  return equals === -1 ? [arg, undefined] : [arg.slice(0, equals), arg.slice(equals + 1)];
}
