// The typed face of kubectl: every method runs the real binary through `exec`, with a deadline,
// and returns parsed results. Failures become KubectlError with a one-paragraph diagnosis.
import { type KubectlError, InputError } from '../errors.js';
import type { KubeEvent } from '../kube.js';
import type { WorkloadSnapshot } from '../model/snapshot.js';
import type { KubeObject, ObjectRef } from '../objects/model.js';
import { parseApplyOutput } from './output/apply-output.js';
import type { AppliedObject } from '../model/result.js';
import { diagnoseKubectlFailure } from './output/diagnose.js';
import { diffsByObject } from './output/diff-output.js';
import type { Exec, ExecResult, StreamExec } from './process/exec.js';
import { collectionPath, resourceTypeOf, snapshotOf } from './resources.js';
import { retryTransient } from './transient.js';
import { WatchEventReader, type WatchEvent } from './channel/watch-events.js';
import { DEFAULTS } from '../model/options.js';
import { Discovery } from './discovery.js';
import { ProcessPool } from './process/pool.js';
import { pinnedArgs, targetOf } from './target.js';
import { readKubeconfigTarget } from './kubeconfig.js';
import {
  applyCommand,
  DIFF_FLAGS,
  isRetryable,
  itemsOf,
  listedItems,
  itemsOfValue,
  jsonDocuments,
  kubectlFailure,
  logsResult,
  parseApiResources,
  requestTimeoutWithin,
  RESTORE_FIELD_MANAGER,
  selectorsOf,
  shellQuote,
  withFieldManager,
  withQuery,
  writeFailure,
} from './output/parse.js';
import { reviewAccess } from './access.js';
import type {
  AccessAnswer,
  AccessQuestion,
  ApiResource,
  ApplyRequest,
  CollectionList,
  CollectionQuery,
  Connection,
  DryRunResult,
  Kubectl,
  LogsResult,
  Target,
  WatchStream,
  WriteResult,
} from './types.js';

/** The one way to get a kubectl: the CLI, the journal commands and the library all build it here. */
export function createKubectl(exec: Exec, connection: Connection, stream?: StreamExec): Kubectl {
  return new KubectlClient(exec, connection, stream);
}

class KubectlClient implements Kubectl {
  /** kubectl processes started for calls (a call through the API channel's proxy is none). */
  private processes = 0;
  /** While set, aborting it stops every kubectl call at once (reads before the apply; never a write). */
  private cancel: AbortSignal | undefined;
  /** The connection flags with the run's target pinned, once pinTarget has resolved it. */
  private pinned: readonly string[] | undefined;
  /** Discovery documents by group version, read once each. */
  private readonly discovery = new Discovery((path) =>
    this.run(['get', '--raw', path], { deadlineMs: this.connection.readDeadlineMs }),
  );

  /** At most `connection.concurrency` kubectl processes at once (watch streams aside). */
  private readonly pool: ProcessPool;

  constructor(
    private readonly exec: Exec,
    private readonly connection: Connection,
    private readonly stream?: StreamExec,
  ) {
    this.pool = new ProcessPool(connection.concurrency ?? DEFAULTS.concurrency);
  }

  /** How many kubectl processes this object started, its API channel's proxy included: reported in measurements and --output json. */
  get spawned(): number {
    return this.processes + (this.connection.channelProcesses?.() ?? 0);
  }

  /** The most kubectl processes (watch streams aside) that ran at once. */
  get peakProcesses(): number {
    return this.pool.peak;
  }

  async kustomize(directory: string): Promise<string> {
    const result = await this.run(['kustomize', directory], {
      deadlineMs: this.connection.readDeadlineMs,
      bounded: false,
    });
    if (result.exitCode !== 0) {
      const diagnosis = diagnoseKubectlFailure(result);
      if (diagnosis.kind === 'missing-binary') throw this.failure('render the kustomization', result);
      throw new InputError(
        `kubectl kustomize ${directory} failed: ${diagnosis.detail}. Fix the kustomization; nothing was applied.`,
      );
    }
    return result.stdout;
  }

  /**
   * kubectl's own reading of the manifests: `kubectl apply --dry-run=client|server -o json` over
   * the same inputs. The client run names every object with its namespace resolved as kubectl
   * resolves it; the server run returns each object as the API server would store it.
   * With -o json kubectl prints the applied objects as one document (a List when there are
   * several), then one document per pruned object (apply.go printObjects, prune.go).
   */
  async dryRun(request: ApplyRequest, strategy: 'client' | 'server'): Promise<DryRunResult> {
    // A dry run changes nothing, so a transient failure is simply asked again.
    const result = await this.retrying(() =>
      this.run([...applyCommand(request), `--dry-run=${strategy}`, '-o', 'json'], {
        deadlineMs: request.deadlineMs,
        input: request.stdin,
      }),
    );
    if (result.exitCode !== 0) {
      if (diagnoseKubectlFailure(result).kind === 'missing-binary') throw this.failure('run kubectl', result);
      return { ok: false, stderr: result.stderr, timedOut: result.timedOut === true };
    }
    const documents = jsonDocuments(result.stdout);
    const [first, ...rest] = documents;
    const objects = first ? itemsOfValue<KubeObject>(first) : [];
    this.connection.observe?.([...objects, ...(rest as KubeObject[])]);
    return { ok: true, objects, pruned: rest as KubeObject[], warnings: result.stderr };
  }

  async readApplied(request: ApplyRequest): Promise<KubeObject[]> {
    const [, ...inputs] = applyCommand(request);
    const args = ['get', ...inputs, '-o', 'json', '--show-managed-fields', '--ignore-not-found'];
    const result = await this.run(args, { deadlineMs: this.connection.readDeadlineMs, input: request.stdin });
    if (result.exitCode !== 0) throw this.failure('read the objects of the apply', result);
    return this.observed(jsonDocuments(result.stdout).flatMap((document) => itemsOfValue<KubeObject>(document)));
  }

  /**
   * What a client-side dry run says it would do to each object, in kubectl's order. Its -o json
   * output cannot tell: for an object that exists it prints the live object, since the patch is
   * never sent (apply.go, DryRunClient).
   */
  async dryRunActions(request: ApplyRequest): Promise<AppliedObject[]> {
    const result = await this.run([...applyCommand(request), '--dry-run=client'], {
      deadlineMs: request.deadlineMs,
      input: request.stdin,
    });
    if (result.exitCode !== 0) throw this.failure('preview the apply', result);
    return parseApplyOutput(result.stdout);
  }

  /**
   * `kubectl diff` over the same inputs: the live objects against what the apply would make of
   * them, split per object. kubectl diff exits 1 when there are differences: that is an answer,
   * not a failure; above 1 it failed.
   */
  async diff(request: ApplyRequest, refs: readonly ObjectRef[]): Promise<Map<string, string[]>> {
    const args = ['diff', ...request.filenames.flatMap((filename) => ['-f', filename])];
    if (request.recursive) args.push('-R');
    if (request.namespace) args.push('-n', request.namespace);
    // Only the apply flags kubectl diff takes: it refuses the others.
    args.push(...request.applyArgs.filter((arg) => DIFF_FLAGS.test(arg)));
    const result = await this.retrying(() => this.run(args, { deadlineMs: request.deadlineMs, input: request.stdin }));
    if (result.exitCode !== 0 && result.exitCode !== 1)
      throw this.failure('show the differences (kubectl diff)', result);
    return diffsByObject(result.stdout, refs);
  }

  /**
   * `kubectl apply`, tried again after a transient failure. Repeating it is safe only because
   * apply is idempotent: it sends the desired state, not a change, so objects the first attempt
   * already wrote come out unchanged the second time. What an attempt reported applied before it
   * failed is kept (a later attempt reports those objects as unchanged).
   */
  async apply(request: ApplyRequest): Promise<AppliedObject[]> {
    const applied = new Map<string, AppliedObject>();
    const result = await this.retrying(async () => {
      const attempt = await this.run(applyCommand(request), { deadlineMs: request.deadlineMs, input: request.stdin });
      for (const object of parseApplyOutput(attempt.stdout)) {
        const key = `${object.resource}/${object.name}`;
        if (!applied.has(key) || applied.get(key)?.action === 'unchanged') applied.set(key, object);
      }
      return attempt;
    });
    if (result.exitCode !== 0)
      throw this.failure('apply the manifests', result, [...applied.values()], {
        ms: request.deadlineMs,
        flag: '--timeout',
      });
    return [...applied.values()];
  }

  /**
   * Full copies of objects of the given types in one namespace ('' for cluster-scoped types),
   * one list request per type, with managedFields (kubectl hides them unless asked).
   */
  async listObjects(namespace: string, types: readonly string[]): Promise<KubeObject[]> {
    if (types.length === 0) return [];
    const items = await this.lists(
      namespace,
      types,
      {},
      `read ${types.join(', ')}${namespace ? ` in namespace ${namespace}` : ''}`,
      ['get', types.join(','), ...(namespace ? ['-n', namespace] : []), '-o', 'json', '--show-managed-fields'],
    );
    return this.observed(items);
  }

  /**
   * Objects of `types` as `kubectl get TYPES -o json` lists them: one `get --raw` list per type
   * when every type's REST path is known (through the API channel, no process of its own), in
   * the order of the types; else `kubectlArgs` as one kubectl command.
   */
  private async lists(
    namespace: string,
    types: readonly string[],
    selectors: Record<string, string>,
    what: string,
    kubectlArgs: string[],
  ): Promise<KubeObject[]> {
    const paths = await Promise.all(
      types.map((type) => this.collectionPathOf({ type, namespace }).catch(() => undefined)),
    );
    if (paths.every((path) => path !== undefined)) {
      const results = await Promise.all(
        paths.map((path) =>
          this.run(['get', '--raw', withQuery(path, selectors)], { deadlineMs: this.connection.readDeadlineMs }),
        ),
      );
      const failed = results.find((result) => result.exitCode !== 0);
      if (failed) throw this.failure(what, failed);
      return results.flatMap((result) => listedItems(result.stdout).items);
    }
    const result = await this.run(kubectlArgs, { deadlineMs: this.connection.readDeadlineMs });
    if (result.exitCode !== 0) throw this.failure(what, result);
    return itemsOf<KubeObject>(result.stdout);
  }

  /**
   * One object as it is now, or undefined when it does not exist. A type whose REST path is known
   * is read with `get --raw` (through the API channel: no process of its own); 404 means gone.
   */
  async getObject(type: string, namespace: string, name: string): Promise<KubeObject | undefined> {
    const path = await this.collectionPathOf({ type, namespace }).catch(() => undefined);
    if (path) {
      const raw = await this.run(['get', '--raw', `${path}/${encodeURIComponent(name)}`], {
        deadlineMs: this.connection.readDeadlineMs,
      });
      if (raw.exitCode === 0) return this.observed([JSON.parse(raw.stdout) as KubeObject])[0];
      if (/\(NotFound\)/.test(raw.stderr)) return undefined;
      throw this.failure(`read ${type}/${name}${namespace ? ` in namespace ${namespace}` : ''}`, raw);
    }
    const result = await this.run(
      [
        'get',
        type,
        name,
        ...(namespace ? ['-n', namespace] : []),
        '-o',
        'json',
        '--show-managed-fields',
        '--ignore-not-found',
      ],
      { deadlineMs: this.connection.readDeadlineMs },
    );
    if (result.exitCode !== 0)
      throw this.failure(`read ${type}/${name}${namespace ? ` in namespace ${namespace}` : ''}`, result);
    return this.observed(itemsOf<KubeObject>(result.stdout))[0];
  }

  /**
   * PUT the whole object to its REST path (`kubectl replace --raw PATH -f -`). The raw form
   * sends the body untouched: plain `kubectl replace` rewrites an existing
   * last-applied-configuration annotation from the object it sends (kubectl replace.go →
   * util.CreateOrUpdateAnnotation), which would corrupt the copy being restored.
   * metadata.resourceVersion makes the write conditional (409 Conflict if the object moved);
   * non-empty managedFields in the body replace the stored ones (apimachinery fieldmanager.go).
   */
  async replace(object: KubeObject, path: string, deadlineMs: number): Promise<WriteResult> {
    return this.rawWrite('replace', withFieldManager(path), object, deadlineMs);
  }

  /** POST a new object to its collection path (`kubectl create --raw PATH -f -`), body untouched. */
  async create(object: KubeObject, collectionPath: string, deadlineMs: number): Promise<WriteResult> {
    return this.rawWrite('create', withFieldManager(collectionPath), object, deadlineMs);
  }

  private async rawWrite(
    verb: 'replace' | 'create',
    path: string,
    object: KubeObject,
    deadlineMs: number,
  ): Promise<WriteResult> {
    // Safe to repeat: the body carries metadata.resourceVersion (a PUT) or the object must not
    // exist yet (a POST), so a write that did land answers the retry with 409, never twice.
    const result = await this.retrying(() =>
      this.run([verb, '--raw', path, '-f', '-'], { deadlineMs, input: JSON.stringify(object) }),
    );
    if (result.exitCode === 0) return { ok: true, object: this.observed(itemsOf<KubeObject>(result.stdout))[0] };
    return writeFailure(result, deadlineMs);
  }

  /**
   * DELETE with preconditions (`kubectl delete --raw PATH -f -` sends the file as the request
   * body: kubectl delete.go → rawhttp.RawDelete). A uid precondition deletes exactly the object
   * this run created, never a namesake created since.
   */
  async deleteExact(
    path: string,
    preconditions: { uid: string; resourceVersion?: string },
    deadlineMs: number,
  ): Promise<WriteResult> {
    const body = { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Background', preconditions };
    // Safe to repeat: the uid precondition; a delete that did land answers the retry with 404.
    const result = await this.retrying(() =>
      this.run(['delete', '--raw', path, '-f', '-'], { deadlineMs, input: JSON.stringify(body) }),
    );
    if (result.exitCode === 0) return { ok: true };
    return writeFailure(result, deadlineMs);
  }

  /** kguard's run journals (Secrets with the journal label), in one namespace or in all. */
  async listLabelled(type: string, namespace: string | undefined, selector: string): Promise<KubeObject[]> {
    return this.lists(
      namespace ?? '',
      [type],
      { labelSelector: selector },
      `list ${type} labelled ${selector}${namespace ? ` in namespace ${namespace}` : ''}`,
      ['get', type, ...(namespace ? ['-n', namespace] : ['--all-namespaces']), '-l', selector, '-o', 'json'],
    );
  }

  /** Resource names and scope by "group/Kind", from discovery (`kubectl api-resources`). */
  async apiResources(apiVersions?: readonly string[]): Promise<Map<string, ApiResource>> {
    if (apiVersions) return this.discovery.resourcesOf([...new Set(apiVersions)]);
    const result = await this.run(['api-resources', '-o', 'wide', '--no-headers=false'], {
      deadlineMs: this.connection.readDeadlineMs,
    });
    const resources = parseApiResources(result.stdout);
    // Partial discovery (an APIService down) makes kubectl exit 1 after printing every group it
    // could read (memcache.go, "unable to retrieve the complete list of server APIs"): still right.
    if (
      result.exitCode !== 0 &&
      !(resources.size > 0 && /unable to retrieve the complete list of server APIs/.test(result.stderr))
    ) {
      throw this.failure('read the API resources (kubectl api-resources)', result);
    }
    return resources;
  }

  /** Kinds a CRD of this run just established appear: discovery is read again from now on. */
  refreshDiscovery(): void {
    this.discovery.forget();
  }
  /**
   * What the tracker reads of one namespace, in a single kubectl call: the types its kinds' rows
   * name (`deployments.apps`, `pods`, a custom resource's `kind.version.group`...). Namespace ''
   * reads cluster-scoped types.
   */
  async workloadState(namespace: string, types: readonly string[]): Promise<WorkloadSnapshot> {
    const result = await this.run(['get', types.join(','), ...(namespace ? ['-n', namespace] : []), '-o', 'json'], {
      deadlineMs: this.connection.readDeadlineMs,
    });
    if (result.exitCode !== 0)
      throw this.failure(`read workloads${namespace ? ` in namespace ${namespace}` : ''}`, result);
    return snapshotOf(itemsOf<KubeObject>(result.stdout));
  }

  /**
   * One collection as the API server lists it (`kubectl get --raw`), with the list's
   * resourceVersion, which kubectl's own `get -o json` of several types does not keep: a watch
   * started from it misses nothing. Items get back the kind the API server leaves out of lists.
   */
  async listCollection(query: CollectionQuery): Promise<CollectionList> {
    const path = await this.collectionPathOf(query).catch((error: unknown) => error as Error);
    if (path instanceof Error) return { ok: false, message: path.message, transient: false };
    const result = await this.run(['get', '--raw', withQuery(path, selectorsOf(query))], {
      deadlineMs: this.connection.readDeadlineMs,
    });
    if (result.exitCode !== 0)
      return { ok: false, message: diagnoseKubectlFailure(result).detail, transient: isRetryable(result) };
    return { ok: true, ...listedItems(result.stdout) };
  }

  /**
   * Watches one collection from `resourceVersion` (`kubectl get --raw '…?watch=1'`, which copies
   * the server's stream as it arrives), with bookmarks, until the server ends it after
   * `timeoutSeconds`. No --request-timeout: it would cut the stream.
   */
  watchCollection(
    query: CollectionQuery,
    from: { resourceVersion: string; timeoutSeconds: number },
    onEvent: (event: WatchEvent) => void,
  ): WatchStream {
    const stream = this.stream;
    if (!stream)
      return {
        done: Promise.resolve({ ended: false, message: 'watching is not available', transient: false }),
        stop: () => undefined,
      };
    let stopRequested = false;
    let running: ReturnType<StreamExec> | undefined;
    const done = (async () => {
      const path = await this.collectionPathOf(query).catch((error: unknown) => error as Error);
      if (path instanceof Error) return { ended: false as const, message: path.message, transient: false };
      if (stopRequested) return { ended: true as const };
      const params = {
        ...selectorsOf(query),
        watch: '1',
        resourceVersion: from.resourceVersion,
        allowWatchBookmarks: 'true',
        timeoutSeconds: String(from.timeoutSeconds),
      };
      const reader = new WatchEventReader();
      running = stream(
        this.connection.binary,
        [...this.connectionArgs(), 'get', '--raw', withQuery(path, params)],
        (text) => {
          for (const event of reader.push(text)) onEvent(event);
        },
      );
      const result = await running.done;
      if (!result.proxied) this.processes += 1;
      if (result.exitCode === 0 || stopRequested) return { ended: true as const };
      return { ended: false as const, message: diagnoseKubectlFailure(result).detail, transient: isRetryable(result) };
    })();
    return {
      done,
      stop: () => {
        stopRequested = true;
        running?.stop();
      },
    };
  }

  /** The REST path of a collection; a custom kind's plural is looked up once in discovery. */
  private async collectionPathOf(query: CollectionQuery): Promise<string> {
    const type = resourceTypeOf(query.type);
    if (!type) throw new Error(`kguard cannot watch ${query.type}: not a type it knows the path of`);
    const resource = type.resource ?? (await this.discovery.resourceNameOf(type.group, type.version, type.kind));
    return collectionPath(type, resource, query.namespace);
  }

  /** Events about one object (a pod or a deployment), oldest first. */
  async events(namespace: string, objectName: string): Promise<KubeEvent[]> {
    const selector = `involvedObject.name=${objectName}`;
    const items = await this.lists(namespace, ['events'], { fieldSelector: selector }, `read events of ${objectName}`, [
      'get',
      'events',
      '-n',
      namespace,
      '--field-selector',
      selector,
      '-o',
      'json',
    ]);
    return items as unknown as KubeEvent[];
  }

  async pinTarget(): Promise<Target | undefined> {
    const target = await this.target();
    if (target) this.pinned = pinnedArgs(this.connection.connectionArgs, target);
    return target;
  }

  openChannel(): void {
    this.connection.pinned?.(this.connectionArgs());
  }

  async target(): Promise<Target | undefined> {
    // The plain case read from the file (no process before the dry runs); kubectl otherwise.
    const read = await readKubeconfigTarget(this.connection.connectionArgs);
    if (read) return read;
    const result = await this.run(['config', 'view', '--minify', '-o', 'json'], {
      deadlineMs: this.connection.readDeadlineMs,
      bounded: false,
    });
    if (result.exitCode !== 0) return undefined;
    return targetOf(result.stdout);
  }

  private connectionArgs(): readonly string[] {
    return this.pinned ?? this.connection.connectionArgs;
  }
  /** The exact command a person would type, with this run's connection flags. */
  commandLine(args: readonly string[]): string {
    return [this.connection.binary, ...this.connection.connectionArgs, ...args].map(shellQuote).join(' ');
  }

  private observed(objects: KubeObject[]): KubeObject[] {
    this.connection.observe?.(objects);
    return objects;
  }

  private async retrying(attempt: () => Promise<ExecResult>): Promise<ExecResult> {
    const retry = this.connection.retry;
    return retry ? retryTransient(attempt, retry.delaysMs, retry.sleep) : attempt();
  }

  /** Calls made until `stopCancelling()` end at once when `signal` aborts: only safe for reads. */
  cancelReadsOn(signal: AbortSignal | undefined): void {
    this.cancel = signal;
  }

  stopCancelling(): void {
    this.cancel = undefined;
  }

  private async run(
    args: readonly string[],
    options: { deadlineMs: number; input?: string; bounded?: boolean },
  ): Promise<ExecResult> {
    const timeoutArgs =
      options.bounded === false
        ? []
        : [`--request-timeout=${requestTimeoutWithin(this.connection.requestTimeout, options.deadlineMs)}`];
    const cancelSignal = this.cancel;
    const result = await this.pool.use(() =>
      this.exec(this.connection.binary, [...this.connectionArgs(), ...args, ...timeoutArgs], {
        input: options.input,
        timeoutMs: options.deadlineMs,
        cancelSignal,
      }),
    );
    if (!result.proxied) this.processes += 1;
    return result;
  }

  private failure(
    what: string,
    result: ExecResult,
    applied: AppliedObject[] = [],
    deadline?: { ms: number; flag: string },
  ): KubectlError {
    return kubectlFailure(what, result, deadline ?? { ms: this.connection.readDeadlineMs }, applied);
  }

  /**
   * The last `tail` lines one container printed (`kubectl logs`); with `previous`, those of its run
   * before the last restart. Evidence, not a verdict: a failure comes back as kubectl's own words.
   */
  async logs(
    namespace: string,
    pod: string,
    container: string,
    options: { tail: number; previous: boolean },
  ): Promise<LogsResult> {
    const args = [
      'logs',
      pod,
      '-n',
      namespace,
      '-c',
      container,
      `--tail=${options.tail}`,
      ...(options.previous ? ['--previous'] : []),
    ];
    return logsResult(await this.run(args, { deadlineMs: this.connection.readDeadlineMs }));
  }

  reviewAccess(questions: readonly AccessQuestion[]): Promise<AccessAnswer[]> {
    return reviewAccess(questions, (args, input) =>
      this.run(args, { deadlineMs: this.connection.readDeadlineMs, input }),
    );
  }
}

export { RESTORE_FIELD_MANAGER };
