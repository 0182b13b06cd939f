// The run's target read from the kubeconfig file itself, instead of a `kubectl config view`
// process before anything else can start (about 130 ms, serial). Only the plain case: one file
// (--kubeconfig, a KUBECONFIG of one path, or ~/.kube/config) whose context names its cluster.
// Whatever only kubectl resolves (several files merged, no file, a server or a cluster or a user
// named on the command line, a file kguard cannot read) returns undefined, and kubectl is asked.
// Names only: credentials, exec plugins and certificates stay kubectl's business.
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import type { Target } from './types.js';

interface KubeconfigFile {
  'current-context'?: unknown;
  contexts?: unknown;
}

/** The one file kubectl would read, or undefined when it would merge several or read none. */
export function kubeconfigFile(
  connectionArgs: readonly string[],
  env: NodeJS.ProcessEnv,
  home: string = homedir(),
): string | undefined {
  // These change what kubectl resolves beyond one file's names: kubectl decides.
  if (connectionArgs.some((arg) => /^--(server|cluster|user|token|username|password)=/.test(arg))) return undefined;
  const flag = connectionArgs.find((arg) => arg.startsWith('--kubeconfig='));
  if (flag !== undefined) return flag.slice('--kubeconfig='.length);
  if (env.KUBECONFIG !== undefined && env.KUBECONFIG !== '') {
    const listed = env.KUBECONFIG.split(path.delimiter).filter((file) => file !== '');
    return listed.length === 1 ? listed[0] : undefined;
  }
  return home ? path.join(home, '.kube', 'config') : undefined;
}

/** The target one kubeconfig's text names (the --context given, else its current-context). Pure. */
export function targetOfKubeconfig(
  text: string,
  parse: (text: string) => unknown,
  context?: string,
): Target | undefined {
  let config: KubeconfigFile;
  try {
    config = parse(text) as KubeconfigFile;
  } catch {
    return undefined;
  }
  if (typeof config !== 'object' || config === null) return undefined;
  const name = context ?? config['current-context'];
  if (typeof name !== 'string' || name === '' || !Array.isArray(config.contexts)) return undefined;
  const entries = (config.contexts as Array<{ name?: unknown; context?: Record<string, unknown> }>).filter(
    (entry) => entry?.name === name,
  );
  // A name given twice is merged by kubectl's rules (the first wins): kubectl decides.
  const entry = entries.length === 1 ? entries[0]?.context : undefined;
  const cluster = entry?.cluster;
  const user = entry?.user ?? '';
  const namespace = entry?.namespace ?? '';
  if (typeof cluster !== 'string' || cluster === '' || typeof user !== 'string' || typeof namespace !== 'string')
    return undefined;
  return { context: name, cluster, user, namespace: namespace || 'default' };
}

/**
 * yaml, loaded when needed. The CLI bundle's part for a package in CommonJS (yaml's build for
 * Node) exports it as its default only: both shapes are taken.
 */
async function loadYaml(): Promise<typeof import('yaml')> {
  const loaded = (await import('yaml')) as typeof import('yaml') & { default?: typeof import('yaml') };
  return typeof loaded.parse === 'function' ? loaded : (loaded.default ?? loaded);
}

/** Reads the target from the kubeconfig file; undefined means ask kubectl (`config view --minify`). */
export async function readKubeconfigTarget(
  connectionArgs: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<Target | undefined> {
  const file = kubeconfigFile(connectionArgs, env);
  if (file === undefined) return undefined;
  const context = connectionArgs.find((arg) => arg.startsWith('--context='))?.slice('--context='.length);
  try {
    const [text, yaml] = await Promise.all([readFile(file, 'utf8'), loadYaml()]);
    return targetOfKubeconfig(text, (source) => yaml.parse(source, { prettyErrors: false }), context);
  } catch {
    return undefined;
  }
}
