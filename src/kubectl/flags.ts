// The kubectl flags kguard knows, as one table: how kubectl parses each (spf13/pflag: a boolean,
// a value, or a value that may be left out, pflag's NoOptDefVal), where kguard sends it, and
// whether `kguard apply` takes it before `--` with kubectl's meaning. passthrough.ts sorts the
// flags after `--` with it; the CLI builds its kubectl options from it; a test
// (test/kubectl/flags.test.ts) diffs it against `kubectl apply --help` and `kubectl options` of
// the kubectl on PATH, so a flag kubectl renames or drops is noticed. Types and data only (the rows
// of a connection or an apply flag are built by `connection` and `applying`, with what sets them apart).

/**
 * How pflag reads the flag. `boolean`: `--flag` or `--flag=false` (never the next word).
 * `value`: `--flag=v`, `--flag v`, and for a shorthand `-x v`, `-xv`, `-x=v`.
 * `optional-value`: `--flag` alone means `bare`, a value only as `--flag=v` (NoOptDefVal).
 */
export type FlagArity = 'boolean' | 'value' | 'optional-value';

/**
 * Where kguard sends it. `connection`: every kubectl call (which cluster, who). `namespace`:
 * kguard's -n. `selection`: the dry runs and the apply, and kubectl's reading of the manifests.
 * `apply`: the dry runs and the apply. `dry-run`: a preview.
 */
export type FlagRole = 'connection' | 'namespace' | 'selection' | 'apply' | 'dry-run';

export interface KubectlFlag {
  long: string;
  short?: string;
  arity: FlagArity;
  /** `kubectl apply --help` lists it (apply), or `kubectl options` does (global). */
  scope: 'apply' | 'global';
  role: FlagRole;
  /** For `optional-value`: what the bare flag means (pflag NoOptDefVal). */
  bare?: string;
  /** kubectl's own flag may be repeated (a []string in kubectl apply --help). */
  repeatable?: boolean;
  /** Its value is a credential: never printed (kguard -v, printed commands, reports). */
  secret?: boolean;
  /** The kubectl minor version that added it (older ones refuse it, in their own words). */
  since?: number;
  /**
   * `kguard apply` takes it before `--` with kubectl's meaning; the text is its help line and
   * the placeholder its value's name.
   */
  native?: { help: string; placeholder?: string };
}

/**
 * Flags after `--` that kguard owns or cannot honour, with where to put them instead. kubectl's
 * `-v` (log level) is not here: after `--` it reaches kubectl as `-v=N`; before it, `-v` is
 * kguard's own --verbose.
 */
export const REFUSED_AFTER_DASH_DASH: Readonly<Record<string, string>> = {
  '-f': 'name manifests with -f before --, where kguard reads them',
  '--filename': 'name manifests with -f before --, where kguard reads them',
  '-k': 'pass -k before --, where kguard renders it',
  '--kustomize': 'pass -k before --, where kguard renders it',
  '-R': 'pass -R before --',
  '--recursive': 'pass -R before --',
  '-o': "kguard reads kubectl's output itself; use kguard's own --output json",
  '--output': "kguard reads kubectl's output itself; use kguard's own --output json",
  '--request-timeout':
    'kguard sets a deadline on every kubectl call itself (--timeout, --rollback-timeout); pass --request-timeout before --',
  '--edit-last-applied': 'not an apply kguard can watch',
  '--wait': 'kguard waits for every changed object itself',
  // `kubectl options` lists it from 1.34 (KEP-3104, kuberc); kguard sets KUBECTL_KUBERC=false (exec.ts).
  '--kuberc':
    'kguard runs kubectl without kuberc preferences (a default such as delete --interactive or get -o wide breaks its own calls); pass the flags you want after --',
};

// `kubectl apply --help` and `kubectl options` (kubectl 1.32). kguard's own flags that share a
// name with kubectl's (-f, -R, -k, -n, --context, --kubeconfig, --server-side, --field-manager,
// --dry-run, --request-timeout) are commander options of their own and are listed here only when
// `--` must sort them.
export const KUBECTL_FLAGS: readonly KubectlFlag[] = [
  // Which cluster and who: every kubectl call kguard makes gets them, the restore's included.
  connection('--context'),
  connection('--kubeconfig'),
  connection('--cluster', { native: { help: 'the kubeconfig cluster to use', placeholder: 'name' } }),
  connection('--user', { native: { help: 'the kubeconfig user to use', placeholder: 'name' } }),
  connection('--as', { native: { help: 'user to impersonate for every kubectl call', placeholder: 'user' } }),
  connection('--as-group', {
    repeatable: true,
    native: { help: 'group to impersonate (repeatable)', placeholder: 'group' },
  }),
  connection('--as-uid'),
  // Listed by `kubectl options` from 1.35 (checked against 1.33.9, 1.34.5 and 1.35.2 binaries).
  connection('--as-user-extra', { repeatable: true, since: 35 }),
  connection('--server', {
    short: '-s',
    native: { help: 'the address and port of the API server', placeholder: 'url' },
  }),
  connection('--token', {
    secret: true,
    native: { help: 'bearer token for the API server (never printed)', placeholder: 'token' },
  }),
  connection('--certificate-authority', {
    native: { help: 'path to a cert file for the certificate authority', placeholder: 'file' },
  }),
  connection('--insecure-skip-tls-verify', {
    arity: 'boolean',
    native: { help: "do not check the server's certificate (insecure)" },
  }),
  connection('--client-certificate'),
  connection('--client-key'),
  connection('--tls-server-name'),
  connection('--username'),
  connection('--password', { secret: true }),
  connection('--cache-dir'),
  connection('--disable-compression', { arity: 'boolean' }),
  connection('--match-server-version', { arity: 'boolean' }),
  { long: '--namespace', short: '-n', arity: 'value', scope: 'global', role: 'namespace' },
  // Which objects: kubectl's reading of the manifests must see the selector too.
  {
    long: '--selector',
    short: '-l',
    arity: 'value',
    scope: 'apply',
    role: 'selection',
    native: { help: 'apply only the objects with these labels (kubectl apply -l)', placeholder: 'query' },
  },
  // How the apply applies: the dry runs and the apply get them.
  applying('--prune', 'boolean', {
    native: { help: 'delete objects the manifests no longer hold (with -l or --all); kguard restores them on failure' },
  }),
  applying('--prune-allowlist', 'value', {
    repeatable: true,
    native: { help: 'group/version/kind that --prune may delete (repeatable)', placeholder: 'gvk' },
  }),
  applying('--all', 'boolean'),
  applying('--force-conflicts', 'boolean', { native: { help: 'server-side apply: take fields other managers own' } }),
  applying('--validate', 'optional-value', {
    bare: 'strict',
    native: { help: 'strict (or true), warn, ignore (or false); alone: strict', placeholder: 'mode' },
  }),
  applying('--overwrite', 'boolean', {
    native: {
      help: 'resolve conflicts with the live object from the manifest (on by default; --overwrite=false turns it off)',
    },
  }),
  applying('--force', 'boolean', { native: { help: 'delete and re-create an object kubectl cannot patch' } }),
  applying('--cascade', 'optional-value', {
    bare: 'background',
    native: {
      help: 'background, orphan or foreground, for what --prune and --force delete; alone: background',
      placeholder: 'strategy',
    },
  }),
  applying('--grace-period', 'value', {
    native: {
      help: 'seconds an object --prune or --force deletes may take to end (-1: its own)',
      placeholder: 'seconds',
    },
  }),
  applying('--server-side', 'boolean'),
  applying('--field-manager', 'value'),
  applying('--timeout', 'value'),
  applying('--template', 'value'),
  // kubernetes/kubernetes#127634 (apply --server-side --subresource), released in 1.32.
  applying('--subresource', 'value', { since: 32 }),
  applying('--openapi-patch', 'boolean'),
  applying('--show-managed-fields', 'boolean'),
  applying('--allow-missing-template-keys', 'boolean'),
  { long: '--dry-run', arity: 'optional-value', bare: 'client', scope: 'apply', role: 'dry-run' },
  // kubectl's global flags that the apply's calls take as they are.
  applying('--v', 'value', { short: '-v', scope: 'global' }),
  applying('--vmodule', 'value', { scope: 'global' }),
  applying('--warnings-as-errors', 'boolean', { scope: 'global' }),
];

/** A connection flag: one of `kubectl options` (global) that takes a value unless said, for every kubectl call. */
function connection(long: string, more: Partial<Omit<KubectlFlag, 'long' | 'role'>> = {}): KubectlFlag {
  return { long, arity: 'value', scope: 'global', role: 'connection', ...more };
}

/** A flag of `kubectl apply --help` (unless said) that the dry runs and the apply get. */
function applying(
  long: string,
  arity: FlagArity,
  more: Partial<Omit<KubectlFlag, 'long' | 'arity' | 'role'>> = {},
): KubectlFlag {
  return { long, arity, scope: 'apply', role: 'apply', ...more };
}

/** kubectl's flags that are not in the table on purpose: kguard owns them or they profile kubectl itself. */
export const NOT_SORTED = [
  '--filename',
  '--kustomize',
  '--recursive',
  '--output',
  '--request-timeout',
  '--wait',
  '--kuberc',
  '--log-flush-frequency',
  '--profile',
  '--profile-output',
];

/** The table entry for a flag as typed (`-l`, `--selector`), if any. */
export function kubectlFlag(name: string): KubectlFlag | undefined {
  return BY_NAME.get(name);
}

const BY_NAME = new Map<string, KubectlFlag>(
  KUBECTL_FLAGS.flatMap((flag) => [[flag.long, flag] as const, ...(flag.short ? [[flag.short, flag] as const] : [])]),
);

/** pflag reads booleans with Go's strconv.ParseBool. */
export function parseKubectlBool(value: string): boolean | undefined {
  if (['1', 't', 'T', 'true', 'TRUE', 'True'].includes(value)) return true;
  if (['0', 'f', 'F', 'false', 'FALSE', 'False'].includes(value)) return false;
  return undefined;
}
