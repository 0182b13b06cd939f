// The process side of kubectl that every capability shares: one call runs the real binary
// through `exec` with the run's connection flags and a deadline, within the process pool; it
// counts processes, pins the target, cancels reads, retries what is safe to repeat and turns a
// failure into KubectlError. The capabilities (apply family, reads, writes, list and watch) are
// functions over it, one file each (kubectl/client/), composed by createKubectl.
import { KubectlError } from '../../errors.js';
import type { KubeObject } from '../../objects/model.js';
import type { AppliedObject } from '../../model/result.js';
import type { Exec, ExecResult, StreamExec } from '../process/exec.js';
import { collectionPath, resourceTypeOf } from '../resources.js';
import { retryTransient } from '../transient.js';
import { DEFAULTS } from '../../model/options.js';
import { Discovery } from '../discovery.js';
import { ProcessPool } from '../process/pool.js';
import { notKubectl, pinnedArgs, targetOf } from '../target.js';
import { readKubeconfigTarget } from '../kubeconfig.js';
import { itemsOf, listedItems, kubectlFailure, requestTimeoutWithin, shellQuote, withQuery } from '../output/parse.js';
import type { CollectionQuery, Connection, Target, KubectlProcess } from '../types.js';

export class KubectlRunner implements KubectlProcess {
  /** kubectl processes started for calls (a call through the API channel's proxy is none). */
  processes = 0;
  /** While set, aborting it stops every kubectl call at once (reads before the apply; never a write). */
  cancel: AbortSignal | undefined;
  /** The connection flags with the run's target pinned, once pinTarget has resolved it. */
  pinned: readonly string[] | undefined;
  /** Discovery documents by group version, read once each. */
  readonly discovery = new Discovery((path) =>
    this.run(['get', '--raw', path], { deadlineMs: this.connection.readDeadlineMs }),
  );

  /** At most `connection.concurrency` kubectl processes at once (watch streams aside). */
  readonly pool: ProcessPool;

  constructor(
    readonly exec: Exec,
    readonly connection: Connection,
    readonly stream?: StreamExec,
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

  async pinTarget(): Promise<Target | undefined> {
    const target = this.connection.target ?? (await this.target());
    if (target) this.pinned = pinnedArgs(this.connection.connectionArgs, target);
    return target;
  }

  openChannel(): boolean {
    return this.connection.pinned?.(this.connectionArgs()) ?? false;
  }

  async target(): Promise<Target | undefined> {
    // The plain case read from the file (no process before the dry runs); kubectl otherwise, and
    // always for a KGUARD_KUBECTL binary: this first call says whether it is kubectl at all.
    const read =
      this.connection.binary === 'kubectl' ? await readKubeconfigTarget(this.connection.connectionArgs) : undefined;
    if (read) return read;
    const result = await this.run(['config', 'view', '--minify', '-o', 'json'], {
      deadlineMs: this.connection.readDeadlineMs,
      bounded: false,
    });
    // The first call of a run: a binary that is not kubectl is said here, not blamed on the manifests.
    const notIt = notKubectl(result, this.connection.binary);
    if (notIt) throw new KubectlError(notIt, undefined, result.stderr);
    if (result.exitCode !== 0) return undefined;
    return targetOf(result.stdout);
  }

  connectionArgs(): readonly string[] {
    return this.pinned ?? this.connection.connectionArgs;
  }
  /** The exact command a person would type, with this run's connection flags. */
  commandLine(args: readonly string[]): string {
    return [this.connection.binary, ...this.connection.connectionArgs, ...args].map(shellQuote).join(' ');
  }

  observed(objects: KubeObject[]): KubeObject[] {
    this.connection.observe?.(objects);
    return objects;
  }

  async retrying(attempt: () => Promise<ExecResult>): Promise<ExecResult> {
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

  /**
   * One kubectl process. A held one (`heldInput`) starts now and reads its stdin only when
   * `heldInput` gives it, or is stopped when it gives nothing; the reads' cancel never stops it
   * (once given its input it is a write), and it stays outside the pool, as a watch does: it
   * waits while the pool's calls run.
   */
  async run(
    args: readonly string[],
    options: {
      deadlineMs: number;
      input?: string;
      bounded?: boolean;
      heldInput?: Promise<string | undefined>;
    },
  ): Promise<ExecResult> {
    const timeoutArgs =
      options.bounded === false
        ? []
        : [`--request-timeout=${requestTimeoutWithin(this.connection.requestTimeout, options.deadlineMs)}`];
    const held = options.heldInput;
    const cancelSignal = held ? undefined : this.cancel;
    const start = () =>
      this.exec(this.connection.binary, [...this.connectionArgs(), ...args, ...timeoutArgs], {
        input: options.input,
        heldInput: held,
        timeoutMs: options.deadlineMs,
        cancelSignal,
      });
    const result = await (held ? start() : this.pool.use(start));
    if (!result.proxied) this.processes += 1;
    return result;
  }

  failure(
    what: string,
    result: ExecResult,
    applied: AppliedObject[] = [],
    deadline?: { ms: number; flag: string },
  ): KubectlError {
    return kubectlFailure(what, result, deadline ?? { ms: this.connection.readDeadlineMs }, applied);
  }

  /**
   * Objects of `types` as `kubectl get TYPES -o json` lists them: one `get --raw` list per type
   * when every type's REST path is known (through the API channel, no process of its own), in
   * the order of the types; else `kubectlArgs` as one kubectl command.
   */
  async lists(
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

  /** The REST path of a collection; a custom kind's plural is looked up once in discovery. */
  async collectionPathOf(query: CollectionQuery): Promise<string> {
    const type = resourceTypeOf(query.type);
    if (!type) throw new Error(`kguard cannot watch ${query.type}: not a type it knows the path of`);
    const resource = type.resource ?? (await this.discovery.resourceNameOf(type.group, type.version, type.kind));
    return collectionPath(type, resource, query.namespace);
  }
}
