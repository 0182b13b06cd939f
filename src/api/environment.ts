// Facts from outside the cluster: manifests from stdin and files, the kubeconfig kubectl will
// read, and how the terminal wants its output.
import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { InputError } from '../errors.js';

export async function readStdin(): Promise<Uint8Array> {
  if (process.stdin.isTTY) {
    throw new InputError(
      '-f - reads manifests from stdin, but stdin is a terminal. Pipe the manifests in: cat app.yaml | kguard apply -f -',
    );
  }
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  // The bytes as they came: kubectl decodes them (UTF-16 with a byte-order mark included).
  return Buffer.concat(chunks);
}

/**
 * The text of every manifest file under the -f paths, as kubectl would find them (a directory's
 * .json, .yaml and .yml files; subdirectories with -R). Only for learning Secret values to
 * redact: unreadable paths are skipped, kubectl reports them.
 */
export async function manifestTexts(paths: readonly string[], recursive: boolean): Promise<string[]> {
  const texts: string[] = [];
  const visit = async (file: string, top: boolean): Promise<void> => {
    const info = await stat(file).catch(() => undefined);
    if (!info) return;
    if (info.isDirectory()) {
      if (!top && !recursive) return;
      for (const entry of await readdir(file).catch(() => [])) await visit(path.join(file, entry), false);
      return;
    }
    if (top || /\.(json|ya?ml)$/i.test(file)) texts.push(await readFile(file, 'utf8').catch(() => ''));
  };
  for (const file of paths) if (file !== '-' && !/^https?:\/\//i.test(file)) await visit(file, true);
  return texts;
}

/**
 * A kubeconfig that is not there, said plainly. kubectl itself answers a missing --kubeconfig
 * with `stat PATH: no such file or directory`, and a KUBECONFIG naming only missing files (or no
 * ~/.kube/config) with an empty configuration, so it tries http://localhost:8080
 * (client-go clientcmd loader.go: missing files in the precedence list are skipped).
 */
export function missingKubeconfig(
  connectionArgs: readonly string[],
  env: NodeJS.ProcessEnv,
  exists: (file: string) => boolean = existsSync,
  home: string = homedir(),
): string | undefined {
  const flag = connectionArgs.find((arg) => arg.startsWith('--kubeconfig='))?.slice('--kubeconfig='.length);
  if (flag !== undefined) {
    return exists(flag)
      ? undefined
      : `the kubeconfig file ${flag} (--kubeconfig) does not exist. Check the path; nothing was applied.`;
  }
  // A server named on the command line, or a pod's service account, needs no kubeconfig file.
  if (connectionArgs.some((arg) => /^(--server|-s)=/.test(arg)) || env.KUBERNETES_SERVICE_HOST) return undefined;
  const listed = (env.KUBECONFIG ?? '').split(path.delimiter).filter((file) => file !== '');
  if (listed.length > 0) {
    if (listed.some(exists)) return undefined;
    return `KUBECONFIG names ${listed.join(', ')}, and no such file exists, so kubectl has no cluster to talk to. Fix KUBECONFIG or pass --kubeconfig; nothing was applied.`;
  }
  const defaultFile = path.join(home, '.kube', 'config');
  if (exists(defaultFile)) return undefined;
  return `no kubeconfig: ${defaultFile} does not exist and KUBECONFIG is not set, so kubectl has no cluster to talk to. Pass --kubeconfig or set KUBECONFIG; nothing was applied.`;
}

/**
 * Whether to colour output on a stream. NO_COLOR (any non-empty value, no-color.org) turns colour
 * off; FORCE_COLOR=0 or false turns it off and any other value on (the supports-color rules chalk
 * follows); otherwise colour only on a terminal that is not TERM=dumb.
 */
export function useColour(env: NodeJS.ProcessEnv, isTty: boolean): boolean {
  if (env.NO_COLOR) return false;
  const force = env.FORCE_COLOR;
  if (force !== undefined) return force !== '0' && force.toLowerCase() !== 'false';
  return isTty && env.TERM !== 'dumb';
}

/**
 * Whether the spinner can draw: a terminal with a known, positive width. A pseudo-terminal can
 * report 0 columns; ora divides by the width to count the lines it must clear, and 0 gives
 * Infinity lines.
 */
export function canAnimate(stream: { isTTY?: boolean; columns?: number }, env: NodeJS.ProcessEnv): boolean {
  return Boolean(stream.isTTY) && !env.CI && typeof stream.columns === 'number' && stream.columns > 0;
}

/**
 * The kubectl plugin's name (krew's too): `kubectl rollout-guard`. A more specific name than
 * `guard`, free in krew-index (kubernetes-sigs/krew-index, plugins/ at c1ba859c, 2026-08-22), and
 * not an extension of a kubectl command (kubectl ignores `kubectl-apply-*`: plugins cannot extend
 * built-in commands other than create). kubectl maps a dash in the command to an underscore in
 * the file name.
 */
export const PLUGIN_NAME = 'rollout-guard';
export const PLUGIN_BINARY = 'kubectl-rollout_guard';
/** kubectl 1.26+ runs it for `kubectl rollout-guard <TAB>` (kubernetes/kubernetes#105867). */
export const PLUGIN_COMPLETION = 'kubectl_complete-rollout_guard';

/**
 * The name to show in help and usage: "kubectl rollout-guard" when kubectl runs kguard as its
 * plugin (kubectl execs the `kubectl-rollout_guard` it finds on PATH, a symlink in
 * node_modules/.bin included), or its completion helper `kubectl_complete-rollout_guard`.
 */
export function programName(launcher: string | undefined, executable: string = process.execPath): string {
  // A release executable (Bun's) runs its script from an embedded path (/$bunfs/root/…, B:/~BUN/…):
  // its own file's name is the executable's.
  const embedded = launcher !== undefined && /^(\/\$bunfs\/|B:[\\/]~BUN[\\/])/.test(launcher);
  const name = launcher === undefined ? '' : path.basename(embedded ? executable : launcher);
  return name === PLUGIN_BINARY || name === PLUGIN_COMPLETION ? `kubectl ${PLUGIN_NAME}` : 'kguard';
}

/**
 * TMPDIR (Node's os.tmpdir()) must be a directory kguard may write: its kubectl proxy's socket,
 * downloaded manifests and private copies go there. Said before anything runs (#45: a missing
 * TMPDIR was "a bug in kguard", exit 70).
 */
export function unusableTempDirectory(directory: string = tmpdir()): string | undefined {
  let why: string | undefined;
  try {
    if (!statSync(directory).isDirectory()) why = 'it is not a directory';
    else accessSync(directory, constants.W_OK | constants.X_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    why = code === 'ENOENT' ? 'it does not exist' : `kguard may not write there (${code ?? String(error)})`;
  }
  if (!why) return undefined;
  return `the temporary directory ${directory} (TMPDIR) cannot be used: ${why}. kguard keeps its kubectl proxy's socket and its private copies there. Next: set TMPDIR to a directory you may write (or unset it for /tmp); nothing was applied.`;
}
