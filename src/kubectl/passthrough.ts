// Sorts kubectl flags (after `--`, and the ones `kguard apply` takes natively): a flag that says
// which cluster or who must reach every kubectl call kguard makes (or kguard would watch another
// cluster than the one it applied to); a flag that changes what is applied reaches the dry runs
// and the apply; a few are kguard's own business and are refused with a message saying where to
// put them. How each flag parses comes from the one table, flags.ts. Pure.
import { InputError } from '../errors.js';
import { kubectlFlag, parseKubectlBool, REFUSED_AFTER_DASH_DASH } from './flags.js';

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

export function splitPassThrough(args: readonly string[]): PassThrough {
  const result: PassThrough = { connection: [], apply: [], selection: [], prune: false, serverSide: false };
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index] as string;
    const [name, inlineValue] = splitFlag(arg);
    const refusal = REFUSED_AFTER_DASH_DASH[name];
    if (refusal) throw new InputError(`${arg} after -- is not passed to kubectl: ${refusal}.`);
    const flag = kubectlFlag(name);
    if (!flag) {
      // Not in the table: kubectl apply reads it, with whatever follows it.
      result.apply.push(arg);
      continue;
    }
    let value: string;
    if (inlineValue !== undefined || flag.arity !== 'value') {
      value = inlineValue ?? flag.bare ?? 'true';
    } else {
      const next = args[index + 1];
      if (next === undefined) throw new InputError(`${name} after -- needs a value.`);
      index += 1;
      value = next;
    }
    const normalized = flag.arity === 'boolean' && inlineValue === undefined ? name : `${name}=${value}`;
    if (flag.arity === 'boolean' && parseKubectlBool(value) === undefined) {
      throw new InputError(`${arg}: ${name} is true or false (${name}=false), as for kubectl.`);
    }
    switch (flag.role) {
      case 'namespace':
        if (result.namespace !== undefined && result.namespace !== value) {
          throw new InputError(
            `-n ${result.namespace} and -n ${value} after -- contradict each other; give one namespace.`,
          );
        }
        result.namespace = value;
        break;
      case 'connection':
        // Long names, so `-s` and `--server` are one flag to every check (target.ts pins by name).
        result.connection.push(
          flag.arity === 'boolean' && inlineValue === undefined ? flag.long : `${flag.long}=${value}`,
        );
        break;
      case 'selection':
        result.selection.push(normalized);
        result.apply.push(normalized);
        break;
      case 'dry-run':
        if (value === 'none') break;
        if (value !== 'client' && value !== 'server')
          throw new InputError(`--dry-run=${value} after -- is not one of none, client, server.`);
        result.dryRun = value;
        break;
      case 'apply':
        if (flag.long === '--prune') result.prune = parseKubectlBool(value) === true;
        if (flag.long === '--server-side') result.serverSide = parseKubectlBool(value) === true;
        result.apply.push(normalized);
        break;
    }
  }
  return result;
}

/**
 * The values of credentials among kubectl flags (--token, --password), written `--token=x` or
 * `--token x`: kguard never prints them, so the redactor learns them before anything runs.
 */
export function credentialValues(args: readonly string[]): string[] {
  return args.flatMap((arg, index) => {
    const [name, value] = splitFlag(arg);
    if (!kubectlFlag(name)?.secret) return [];
    const given = value ?? args[index + 1];
    return given ? [given] : [];
  });
}

/** `--flag=value` → [`--flag`, `value`]; `-l=value` likewise; anything else as it is. */
export function splitFlag(arg: string): [string, string | undefined] {
  if (!arg.startsWith('-')) return [arg, undefined];
  const equals = arg.indexOf('=');
  return equals === -1 ? [arg, undefined] : [arg.slice(0, equals), arg.slice(equals + 1)];
}
