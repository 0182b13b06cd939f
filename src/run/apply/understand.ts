// Understand the apply before touching anything: kubectl's own reading of the manifests (client
// and server dry runs), the pre-apply copies of every object, and the refusal of a dry run the
// API server would not take (nothing is written then, not even a lease).
import { InputError, KubectlError } from '../../errors.js';
import type { ApplyRequest, Kubectl } from '../../kubectl/types.js';
import { builtInTypesLack, withOpenApiPatch } from '../../kubectl/output/parse.js';
import { diagnoseKubectlFailure } from '../../kubectl/output/diagnose.js';
import { readObjects } from '../../kubectl/read-objects.js';
import { withOrigins, type PreparedInputs } from '../../manifests/inputs.js';
import { differingDuplicates, judgeServerDryRun, objectsOfApply } from '../../manifests/understand.js';
import { changeOf } from '../../objects/compare.js';
import { describeObject, kindKey, objectKey, refOf, type KubeObject, type ObjectRef } from '../../objects/model.js';
import type { ApplyOptions } from '../../model/options.js';
import type { ApplyPhase } from '../../model/result.js';
import type { Deps } from './deps.js';

export interface Understood {
  refs: ObjectRef[];
  /** Objects --prune would delete (they are snapshotted, and created again by a restore). */
  pruned: ObjectRef[];
  /** The server's answer to the dry run: objects as it would store them, or its refusal. */
  server: Awaited<ReturnType<Kubectl['dryRun']>>;
  /**
   * The objects as they are, read while the server dry run runs (not under this run's leases: the
   * copies a restore returns to are read again once the leases are held).
   */
  current: Map<string, KubeObject>;
  /** The request the dry run was answered for, when it is not the one asked (kubectl's default patch, `withOpenApiPatch`): the apply sends it. */
  request?: ApplyRequest;
}

/**
 * kubectl is the parser. The server dry run names every object with its namespace resolved and
 * says whether the API server would take them; then the live copies are read by name through the
 * run's API channel (its proxy started here, beside the dry run), or, for a preview or without a
 * channel, by kubectl meanwhile (`get -f`). Two kubectl processes: an apply that changes nothing
 * needs no more. Only when the server refuses (an unknown kind, a Namespace this apply creates, a
 * part of kinds a CRD of this apply defines) does a client dry run name the objects instead, and
 * for a client-side preview (--dry-run=client) it is the whole answer, as kubectl asks nothing.
 */
export async function understand(
  request: ApplyRequest,
  options: ApplyOptions,
  inputs: Pick<PreparedInputs, 'origins'>,
  deps: Pick<Deps, 'kubectl' | 'reporter'>,
  part?: PartReading,
): Promise<Understood> {
  // The client run is only for identities: flags of the server-side apply would be refused by a
  // client dry run (--server-side with --dry-run=client), and only -l changes the selection.
  // Without validation, an unknown kind fails on kubectl's own mapping error (`no matches for
  // kind`), which names the kind, instead of on a schema lookup.
  const clientOnly = options.dryRun === 'client';
  const identityRequest = clientOnly
    ? request
    : { ...request, applyArgs: [...options.selectionArgs, '--validate=false'] };
  if (!clientOnly) {
    let serverRun = deps.kubectl.dryRun(request, 'server');
    // A run that may write starts its API channel (one kubectl proxy) here, beside the dry run: the
    // live copies, the look for a dead run's journal, the leases and the watches all go through it.
    // The live copies are read through it by name once the server names the objects (no process
    // of their own). A preview (--dry-run) starts no proxy: kubectl reads them (`get -f`) meanwhile.
    const byChannel = !options.dryRun && deps.kubectl.openChannel();
    const liveRun = byChannel
      ? undefined
      : deps.kubectl
          .readApplied({ ...request, applyArgs: options.selectionArgs })
          .catch((error: unknown) => (error instanceof Error ? error : new Error(String(error))));
    let server = await serverRun;
    let asked: ApplyRequest | undefined;
    // kubectl's built-in types lack a field these objects hold (kubectl/output/parse.ts applyArgv):
    // asked again with kubectl's default, which the apply then takes too. Nothing was sent.
    if (!server.ok && builtInTypesLack(server.stderr)) {
      asked = withOpenApiPatch(request);
      serverRun = deps.kubectl.dryRun(asked, 'server');
      server = await serverRun;
    }
    const refs = server.ok ? objectsOfApply(server.objects) : [];
    // Each copy of an object written twice is patched on its own in the server's answer: copies that differ show there.
    if (server.ok) refuseDiffering(server.objects);
    if (server.ok && refs.length > 0) {
      deps.reporter.emit({ kind: 'understood', objects: refs, ...(part?.phase ? { applyPhase: part.phase } : {}) });
      const live = await liveRun;
      // Through the channel, or kubectl could not read them (a kind it cannot map from the files alone): by name.
      const current = live === undefined || live instanceof Error ? await snapshot(refs, deps) : liveCopies(live, refs);
      sayWarnings(server.warnings, deps);
      const applied = new Set(refs.map(objectKey));
      const pruned = objectsOfApply(server.pruned).filter((ref) => !applied.has(objectKey(ref)));
      return { refs, pruned, server, current, ...(asked ? { request: asked } : {}) };
    }
    return await readByClient(server, identityRequest, inputs, deps, part);
  }
  return await readByClient(undefined, identityRequest, inputs, deps, part);
}

/** The live copies `kubectl get -f` returned, by key, of the objects the apply names. */
function liveCopies(live: readonly KubeObject[], refs: readonly ObjectRef[]): Map<string, KubeObject> {
  const wanted = new Set(refs.map(objectKey));
  const copies = new Map<string, KubeObject>();
  for (const object of live) {
    const key = objectKey(refOf(object));
    if (wanted.has(key)) copies.set(key, object);
  }
  return copies;
}

function sayWarnings(stderr: string, deps: Pick<Deps, 'reporter'>): void {
  // The API server's warnings (a deprecated API version, an unknown field): said once, before the apply.
  const warnings = kubectlWarnings(stderr);
  if (warnings.length > 0) deps.reporter.emit({ kind: 'kubectl-warnings', lines: warnings });
}

/** kubectl's client dry run names the objects (the server refused, or was not asked). */
async function readByClient(
  server: Awaited<ReturnType<Kubectl['dryRun']>> | undefined,
  identityRequest: ApplyRequest,
  inputs: Pick<PreparedInputs, 'origins'>,
  deps: Pick<Deps, 'kubectl' | 'reporter'>,
  part: PartReading | undefined,
): Promise<Understood> {
  const client = await deps.kubectl.dryRun(identityRequest, 'client');
  if (!client.ok && part) {
    // A part that -l leaves empty holds nothing; one of kinds kubectl cannot map yet is read later.
    if (/no objects passed to apply/.test(client.stderr))
      return {
        refs: [],
        pruned: [],
        server: { ok: true, objects: [], pruned: [], warnings: '' },
        current: new Map(),
      };
    if (part.readLater?.(client.stderr)) throw new NotReadableYet(client.stderr);
  }
  if (!client.ok) {
    // The client run said nothing (killed): the server run over the same inputs may have said why.
    const said = client.stderr.trim() === '' && server && !server.ok && server.stderr.trim() !== '' ? server : client;
    const failure = diagnoseKubectlFailure({
      exitCode: 1,
      stdout: '',
      stderr: said.stderr,
      timedOut: said.timedOut,
    });
    // Credentials that fail are no fault of the manifests (#45: a failing exec plugin was exit 1).
    const what =
      failure.kind === 'unauthorized' ? 'kubectl could not log in to the cluster' : 'kubectl cannot read the manifests';
    const message = `${what}: ${withOrigins(failure.detail, inputs.origins)}. Next: ${failure.nextStep}; nothing was applied.`;
    if (
      failure.kind === 'unreachable' ||
      failure.kind === 'forbidden' ||
      failure.kind === 'unauthorized' ||
      client.timedOut
    ) {
      throw new KubectlError(message, undefined, client.stderr);
    }
    throw new InputError(message);
  }
  const refs = objectsOfApply(client.objects);
  refuseDiffering(client.objects);
  if (refs.length === 0) {
    throw new InputError(
      'the manifests hold no Kubernetes objects (kubectl found none to apply). Check the -f/-k arguments; nothing was applied.',
    );
  }
  deps.reporter.emit({ kind: 'understood', objects: refs, ...(part?.phase ? { applyPhase: part.phase } : {}) });
  const current = await snapshot(refs, deps);
  if (server?.ok) sayWarnings(server.warnings, deps);
  // What --prune would delete, in the server's answer (kubectl prints one document per pruned object).
  const answer = server ?? client;
  const applied = new Set(refs.map(objectKey));
  const pruned = answer.ok ? objectsOfApply(answer.pruned).filter((ref) => !applied.has(objectKey(ref))) : [];
  return { refs, pruned, server: answer, current };
}

/** How one part of a phased apply is read (run/apply/parts.ts). */
export interface PartReading {
  phase?: ApplyPhase;
  /** kubectl's refusal means the part can only be read later (its kinds come with a CRD of this apply). */
  readLater?(stderr: string): boolean;
}

/** kubectl cannot read this part yet: its kinds are not served before a CRD of this apply is Established. */
export class NotReadableYet extends Error {
  constructor(readonly stderr: string) {
    super('kubectl cannot read these manifests yet');
  }
}

/** Full copies of every object, one kubectl call per namespace, all namespaces at once. */
export async function snapshot(
  refs: readonly ObjectRef[],
  deps: Pick<Deps, 'kubectl'>,
): Promise<Map<string, KubeObject>> {
  const read = await readObjects(deps.kubectl, refs);
  if (read.unread.length > 0) throw read.unread[0]!.error;
  return read.live;
}

/** `allRefs`: every object of the apply (a phased apply's Namespaces are in another part). */
export function checkServerDryRun(
  understood: Understood,
  before: Map<string, KubeObject>,
  inputs: Pick<PreparedInputs, 'origins'>,
  deps: Pick<Deps, 'reporter'>,
  allRefs: readonly ObjectRef[] = understood.refs,
) {
  if (understood.server.ok) return;
  const createdNamespaces = new Set(
    allRefs
      .filter((ref) => ref.kind === 'Namespace' && ref.apiVersion === 'v1' && !before.has(objectKey(ref)))
      .map((ref) => ref.name),
  );
  const judgement = judgeServerDryRun(understood.server.stderr, understood.refs, createdNamespaces);
  if (judgement.accepted) {
    for (const { namespace, objects } of judgement.waived)
      deps.reporter.emit({ kind: 'dry-run-waived', namespace, objects });
    return;
  }
  const failure = diagnoseKubectlFailure({
    exitCode: 1,
    stdout: '',
    stderr: judgement.errors.join('\n'),
    timedOut: understood.server.timedOut,
  });
  const quoted = withOrigins(judgement.errors.join('; '), inputs.origins);
  if (failure.kind === 'invalid' || failure.kind === 'not-found' || failure.kind === 'other') {
    throw new InputError(
      `the API server refused the manifests in a dry run: ${quoted}. Next: ${failure.nextStep}; nothing was applied.`,
    );
  }
  throw new KubectlError(
    `kubectl could not check the manifests with the API server (dry run): ${quoted}. Next: ${failure.nextStep}; nothing was applied.`,
    undefined,
    understood.server.stderr,
  );
}

/**
 * Whether the API server's dry run says the apply changes nothing: every object it would store
 * equals the object as it is, and nothing is pruned. A no-op apply then takes no lease and writes
 * no journal; if something does change after all (another writer in between), it is still
 * detected, watched and restored, only without a journal.
 */
export function changesNothing(understood: Understood): boolean {
  if (!understood.server.ok || understood.pruned.length > 0) return false;
  const wouldBe = new Map(understood.server.objects.map((object) => [objectKey(refOf(object)), object]));
  return understood.refs.every((ref) => {
    const key = objectKey(ref);
    const stored = wouldBe.get(key);
    return (
      stored !== undefined &&
      understood.current.has(key) &&
      changeOf(understood.current.get(key), stored).change === 'unchanged'
    );
  });
}

/**
 * Whether kguard can restore every kind the apply holds: the resource name and scope of each, from
 * the discovery of its own group version only (kept for the restore), so an unavailable
 * APIService elsewhere is no reason to refuse. A group version that cannot be read refuses the run
 * before anything is applied, unless the apply also creates CRDs (their kinds appear with them).
 */
export async function checkRestorable(refs: readonly ObjectRef[], deps: Pick<Deps, 'kubectl'>): Promise<void> {
  const createsKinds = refs.some((ref) => ref.kind === 'CustomResourceDefinition');
  const resources = await deps.kubectl
    .apiResources(refs.map((ref) => ref.apiVersion))
    .catch((error: unknown) => error as Error);
  if (createsKinds) return;
  const next =
    'check the API server and its APIServices (kubectl get apiservices), or run with --rollback none to apply without a restore; nothing was applied';
  if (resources instanceof Error)
    throw new KubectlError(`kguard cannot tell how it would restore this apply: ${resources.message}. Next: ${next}.`);
  const unknown = refs.find((ref) => !resources.has(kindKey(ref)));
  if (unknown)
    throw new KubectlError(
      `kguard cannot tell how it would restore ${unknown.kind} (${unknown.apiVersion}): the API server's discovery does not list it. Next: ${next}.`,
    );
}

/** kubectl's `Warning: …` lines (the API server's Warning headers, printed by client-go's warning handler), each once. */
export function kubectlWarnings(stderr: string): string[] {
  return [
    ...new Set(
      stderr
        .split('\n')
        .map((line) => line.trim())
        .filter((line) => line.startsWith('Warning: ')),
    ),
  ];
}

/** An object written twice with different contents (manifests/understand.ts differingDuplicates): refused. */
function refuseDiffering(objects: readonly KubeObject[]): void {
  const twice = differingDuplicates(objects);
  if (twice.length > 0) {
    const named = twice.map(
      ({ ref, paths }) =>
        `${describeObject(ref)} (different ${paths.slice(0, 3).join(', ')}${paths.length > 3 ? ', …' : ''})`,
    );
    throw new InputError(
      `${named.join('; ')} ${twice.length === 1 ? 'is' : 'are'} written more than once in this apply, and the copies differ: kubectl would apply each in turn and the last would win. Next: keep one copy of each; nothing was applied.`,
    );
  }
}
