// The typed face of kubectl: every method runs the real binary through `exec` and returns
// parsed results. Failures become KubectlError with a one-paragraph diagnosis.
import { KubectlError, InputError } from '../errors.js';
import type { Deployment, KubeEvent, KubeList, Pod, ReplicaSet } from '../kube.js';
import { parseApplyOutput, type AppliedObject } from './apply-output.js';
import { diagnoseKubectlFailure } from './diagnose.js';
import type { Exec, ExecResult } from './exec.js';

export interface Connection {
  binary: string;
  context?: string;
  kubeconfig?: string;
  /** Bound on each read-only request, so one hung call cannot stall a poll cycle. */
  requestTimeout: string;
  /**
   * Inside a pod without a kubeconfig (CI runners on Kubernetes) kubectl uses the in-cluster
   * service account and its namespace; this says which, or undefined when not in a pod.
   */
  inClusterNamespace?: () => string | undefined;
}

export interface ApplyRequest {
  filenames: readonly string[];
  recursive: boolean;
  kustomize?: string;
  /** What was read from stdin, passed on to kubectl for `-f -`. */
  stdin?: string;
  namespace?: string;
  serverSide: boolean;
  fieldManager?: string;
  /** Everything after `--`, passed to kubectl apply untouched. */
  passThrough: readonly string[];
  dryRunServer?: boolean;
}

export interface WorkloadSnapshot {
  deployments: Deployment[];
  replicaSets: ReplicaSet[];
  pods: Pod[];
}

export type UndoResult = { ok: true; output: string } | { ok: false; output: string };

export class Kubectl {
  /** How many kubectl processes this object started: reported in measurements and --output json. */
  spawned = 0;

  constructor(
    private readonly exec: Exec,
    private readonly connection: Connection,
  ) {}

  /** The namespace kubectl uses for objects that name none: the context's, else "default". */
  async defaultNamespace(): Promise<string> {
    const result = await this.run(['config', 'view', '--minify', '-o', 'jsonpath={..namespace}']);
    if (result.exitCode !== 0) {
      const inCluster = this.connection.context ? undefined : this.connection.inClusterNamespace?.();
      if (inCluster !== undefined && diagnoseKubectlFailure(result).kind === 'no-context') return inCluster;
      throw this.failure('read the kubeconfig context', result);
    }
    return result.stdout.trim() || 'default';
  }

  async kustomize(directory: string): Promise<string> {
    const result = await this.run(['kustomize', directory], false);
    if (result.exitCode !== 0) {
      const diagnosis = diagnoseKubectlFailure(result);
      if (diagnosis.kind === 'missing-binary') throw this.failure('render the kustomization', result);
      throw new InputError(
        `kubectl kustomize ${directory} failed: ${diagnosis.detail}. Fix the kustomization; nothing was applied.`,
      );
    }
    return result.stdout;
  }

  /** The named Deployments of one namespace as they are now; missing ones are absent from the map. */
  async getDeployments(namespace: string, names: readonly string[]): Promise<Map<string, Deployment>> {
    const found = new Map<string, Deployment>();
    if (names.length === 0) return found;
    const result = await this.run([
      'get',
      ...names.map((name) => `deployments.apps/${name}`),
      '-n',
      namespace,
      '-o',
      'json',
      '--ignore-not-found',
    ]);
    if (result.exitCode !== 0) throw this.failure(`read deployments in namespace ${namespace}`, result);
    for (const deployment of itemsOf<Deployment>(result.stdout)) found.set(deployment.metadata.name, deployment);
    return found;
  }

  /** One Deployment as it is now, or undefined when it does not exist. */
  async getDeployment(namespace: string, name: string): Promise<Deployment | undefined> {
    return (await this.getDeployments(namespace, [name])).get(name);
  }

  async apply(request: ApplyRequest): Promise<AppliedObject[]> {
    const args = ['apply'];
    for (const filename of request.filenames) args.push('-f', filename);
    if (request.recursive) args.push('-R');
    if (request.kustomize !== undefined) args.push('-k', request.kustomize);
    if (request.namespace) args.push('-n', request.namespace);
    if (request.serverSide) args.push('--server-side');
    if (request.fieldManager) args.push(`--field-manager=${request.fieldManager}`);
    if (request.dryRunServer) args.push('--dry-run=server');
    args.push(...request.passThrough);
    const result = await this.run(args, false, request.stdin);
    if (result.exitCode !== 0) {
      const diagnosis = diagnoseKubectlFailure(result);
      if (request.dryRunServer && diagnosis.kind === 'invalid') {
        throw new InputError(
          `the API server rejected the manifests in a dry run: ${diagnosis.detail}. Fix the manifests; nothing was applied.`,
        );
      }
      const what = request.dryRunServer ? 'check the manifests with the API server (apply --dry-run=server)' : 'apply the manifests';
      throw this.failure(what, result);
    }
    return parseApplyOutput(result.stdout);
  }

  /** One namespace's Deployments, ReplicaSets and Pods in a single kubectl call. */
  async workloadState(namespace: string): Promise<WorkloadSnapshot> {
    const result = await this.run(['get', 'deployments.apps,replicasets.apps,pods', '-n', namespace, '-o', 'json']);
    if (result.exitCode !== 0) throw this.failure(`read workloads in namespace ${namespace}`, result);
    const snapshot: WorkloadSnapshot = { deployments: [], replicaSets: [], pods: [] };
    for (const item of itemsOf<{ kind?: string }>(result.stdout)) {
      if (item.kind === 'Deployment') snapshot.deployments.push(item as Deployment);
      else if (item.kind === 'ReplicaSet') snapshot.replicaSets.push(item as ReplicaSet);
      else if (item.kind === 'Pod') snapshot.pods.push(item as Pod);
    }
    return snapshot;
  }

  /** Events about one object (a pod or a deployment), oldest first. */
  async events(namespace: string, objectName: string): Promise<KubeEvent[]> {
    const result = await this.run([
      'get',
      'events',
      '-n',
      namespace,
      '--field-selector',
      `involvedObject.name=${objectName}`,
      '-o',
      'json',
    ]);
    if (result.exitCode !== 0) throw this.failure(`read events of ${objectName}`, result);
    return itemsOf<KubeEvent>(result.stdout);
  }

  async rolloutUndo(namespace: string, name: string, revision: number): Promise<UndoResult> {
    const result = await this.run(
      ['rollout', 'undo', `deployment/${name}`, '-n', namespace, `--to-revision=${revision}`],
      false,
    );
    const output = (result.stdout + result.stderr).trim();
    return result.exitCode === 0 ? { ok: true, output } : { ok: false, output: output || diagnoseKubectlFailure(result).detail };
  }

  /** The exact command a person would type, with this run's --context/--kubeconfig. */
  commandLine(args: readonly string[]): string {
    return [this.connection.binary, ...this.connectionArgs(), ...args].map(shellQuote).join(' ');
  }

  private connectionArgs(): string[] {
    const args: string[] = [];
    if (this.connection.kubeconfig) args.push(`--kubeconfig=${this.connection.kubeconfig}`);
    if (this.connection.context) args.push(`--context=${this.connection.context}`);
    return args;
  }

  private async run(args: readonly string[], boundedRequest = true, input?: string): Promise<ExecResult> {
    this.spawned += 1;
    const timeoutArgs = boundedRequest ? [`--request-timeout=${this.connection.requestTimeout}`] : [];
    return this.exec(this.connection.binary, [...this.connectionArgs(), ...args, ...timeoutArgs], { input });
  }

  private failure(what: string, result: ExecResult): KubectlError {
    const diagnosis = diagnoseKubectlFailure(result);
    return new KubectlError(`kubectl could not ${what}: ${diagnosis.detail}. Next: ${diagnosis.nextStep}.`, undefined, result.stderr);
  }
}

function itemsOf<T>(stdout: string): T[] {
  const text = stdout.trim();
  if (text === '') return [];
  const parsed = JSON.parse(text) as KubeList<T> | T;
  if (typeof parsed === 'object' && parsed !== null && Array.isArray((parsed as KubeList<T>).items)) {
    return (parsed as KubeList<T>).items;
  }
  return [parsed as T];
}

function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
