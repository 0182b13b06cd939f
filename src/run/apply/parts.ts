// What kubectl applies, part by part. An apply without phases is one part: the user's inputs, one
// kubectl apply, as always. An apply that holds CRDs or kguard.dev/phase objects is cut into the
// parts of its phases (manifests/phases.ts), and kubectl reads each part on its own: its client
// and server dry runs name the part's objects and check them before anything changes. A part of
// kinds that a CRD of this apply defines, which kubectl cannot map before that CRD is Established,
// is read once the definitions are applied (run/apply/phases.ts readLater).
import type { Clock } from '../../clock.js';
import { InputError, KubectlError } from '../../errors.js';
import type { ApplyRequest } from '../../kubectl/types.js';
import { errorLines } from '../../manifests/understand.js';
import type { PreparedInputs } from '../../manifests/inputs.js';
import { phaseInputs, type PartFiles } from '../../manifests/phase-files.js';
import type { RunEvent } from '../../model/events.js';
import type { ApplyOptions } from '../../model/options.js';
import type { ApplyPhase } from '../../model/result.js';
import { conditionOf, type Condition } from '../../kube.js';
import { groupOf, objectKey, type KubeObject, type ObjectRef } from '../../objects/model.js';
import type { Deps } from './deps.js';
import { applyRequest } from '../../kubectl/output/parse.js';
import { checkServerDryRun, NotReadableYet, understand, type Understood } from './understand.js';

export interface RunPart {
  /** Undefined: the apply has no phases (one part, the user's inputs). */
  phase?: ApplyPhase;
  /** Its documents are of kinds a CRD of this apply defines. */
  custom: boolean;
  request: ApplyRequest;
  documents: PartFiles['documents'];
  /** kubectl's reading; undefined until kubectl can read it (a part of kinds this apply's CRDs define). */
  understood?: Understood;
}

export interface RunPlan {
  parts: RunPart[];
  phased: boolean;
  /** Every private file kubectl reads → what the user named, for kubectl's messages. */
  origins: Map<string, string>;
  cleanup(): Promise<void>;
}

export async function planRun(inputs: PreparedInputs, options: ApplyOptions): Promise<RunPlan> {
  const whole = applyRequest(options, inputs);
  const phased = await phaseInputs(inputs);
  if (!phased)
    return {
      parts: [{ custom: false, request: whole, documents: [] }],
      phased: false,
      origins: inputs.origins,
      cleanup: async () => undefined,
    };
  if (options.applyArgs.some((arg) => /^--prune(=|$)/.test(arg))) {
    await phased.cleanup();
    throw new InputError(
      'this apply holds CustomResourceDefinitions or kguard.dev/phase objects, which kguard applies in phases, one kubectl apply each; with --prune each of them would prune the objects of the others. Next: apply the CRDs (and phase objects) on their own, or drop --prune; nothing was applied.',
    );
  }
  return {
    parts: phased.parts.map((part) => ({
      phase: part.phase,
      custom: part.custom,
      request: { ...whole, filenames: [part.directory], recursive: false },
      documents: part.documents,
    })),
    phased: true,
    origins: new Map([...inputs.origins, ...phased.origins]),
    cleanup: phased.cleanup,
  };
}

/**
 * kubectl's reading of every part it can read now (all at once; their lines said in part order),
 * and the API server's answer to their dry runs: a refusal ends the run before anything changes.
 * Returns the apply's objects as one reading; the parts keep their own.
 */
export async function understandPlan(
  plan: RunPlan,
  options: ApplyOptions,
  deps: Pick<Deps, 'kubectl' | 'reporter'>,
): Promise<Understood> {
  const said: RunEvent[][] = plan.parts.map(() => []);
  const readParts = (parts: readonly RunPart[]) =>
    Promise.all(
      parts.map(async (part) => {
        const index = plan.parts.indexOf(part);
        const reporter = { emit: (event: RunEvent) => said[index]!.push(event), close: () => undefined };
        try {
          part.understood = await understand(
            part.request,
            options,
            plan,
            { kubectl: deps.kubectl, reporter },
            plan.phased ? readingOf(part) : undefined,
          );
          // The dry run was answered for another request (kubectl's default patch): the apply sends that one.
          if (part.understood.request) part.request = part.understood.request;
        } catch (error) {
          if (!(error instanceof NotReadableYet)) throw error;
          said[index]!.push({
            kind: 'phase-deferred',
            phase: part.phase ?? 'main',
            documents: describe(part),
            dryRun: options.dryRun !== undefined,
          });
        }
      }),
    );
  try {
    await readParts(plan.parts.filter((part) => !part.custom));
    // Objects of this apply's CRDs are read now only when every one of those CRDs is already
    // served (an operator bundle applied again); else once the definitions phase has made them
    // so: kubectl's discovery cache may still know a kind whose CRD is gone, and its reading
    // would then hold objects the API server cannot serve.
    const custom = plan.parts.filter((part) => part.custom);
    if (custom.length > 0 && allServed(plan.parts)) await readParts(custom);
    else
      for (const part of custom)
        said[plan.parts.indexOf(part)]!.push({
          kind: 'phase-deferred',
          phase: part.phase ?? 'main',
          documents: describe(part),
          dryRun: options.dryRun !== undefined,
        });
  } finally {
    for (const event of said.flat()) deps.reporter.emit(event);
  }
  const read = plan.parts.flatMap((part) => (part.understood ? [part.understood] : []));
  if (!plan.phased) {
    const [only] = read;
    if (only!.refs.length === 0) throw noObjects();
    checkServerDryRun(only!, only!.current, plan, deps);
    return only!;
  }
  const refs = read.flatMap((understood) => understood.refs);
  if (refs.length === 0 && read.length === plan.parts.length) throw noObjects();
  const current = new Map(read.flatMap((understood) => [...understood.current]));
  for (const understood of read) checkServerDryRun(understood, current, plan, deps, refs);
  // A part whose dry run was waived (its namespace is created by this apply) has no answer: as for one apply.
  const answers = read.flatMap((understood) => (understood.server.ok ? [understood.server] : []));
  return {
    refs,
    pruned: read.flatMap((understood) => understood.pruned),
    server: {
      ok: true,
      objects: answers.flatMap((answer) => answer.objects),
      pruned: answers.flatMap((answer) => answer.pruned),
      warnings: '',
    },
    current,
  };
}

/**
 * A part kubectl could not read before (its kinds come with a CRD of this apply), read now that
 * the definitions are applied and Established. The API server's discovery may serve a new kind a
 * moment after its CRD is Established, so kubectl is asked again, at growing intervals, for up to
 * a minute (or --timeout); a dry run the API server refuses ends the run (what the earlier phases
 * changed is restored).
 */
export async function readLater(
  part: RunPart,
  plan: RunPlan,
  known: { refs: readonly ObjectRef[]; current: Map<string, KubeObject> },
  options: ApplyOptions,
  deps: Pick<Deps, 'kubectl' | 'reporter'> & { clock: Clock },
): Promise<Understood> {
  const startedAt = deps.clock.now();
  const patienceMs = Math.min(60_000, options.timeoutMs);
  for (let wait = 250; ; wait = Math.min(wait * 2, 4_000)) {
    try {
      const understood = await understand(part.request, options, plan, deps, readingOf(part));
      checkServerDryRun(understood, new Map([...known.current, ...understood.current]), plan, deps, [
        ...known.refs,
        ...understood.refs,
      ]);
      return understood;
    } catch (error) {
      if (!(error instanceof NotReadableYet)) throw error;
      if (deps.clock.now() - startedAt >= patienceMs) {
        throw new KubectlError(
          `kubectl still cannot read ${describe(part).join(', ')} ${Math.round(patienceMs / 1000)}s after their CustomResourceDefinitions were Established: ${errorLines(error.stderr).join('; ')}. Next: check the CRDs (kubectl get crd) and the API server's discovery`,
        );
      }
      await deps.clock.sleep(wait);
    }
  }
}

/** Whether every CRD of the apply exists and is Established now. */
function allServed(parts: readonly RunPart[]): boolean {
  return parts.every((part) =>
    (part.understood?.refs ?? [])
      .filter((ref) => ref.kind === 'CustomResourceDefinition' && groupOf(ref.apiVersion) === 'apiextensions.k8s.io')
      .every((ref) => {
        const live = part.understood!.current.get(objectKey(ref)) as
          | { status?: { conditions?: Condition[] } }
          | undefined;
        return live !== undefined && conditionOf(live, 'Established')?.status === 'True';
      }),
  );
}

function readingOf(part: RunPart): { phase?: ApplyPhase; readLater?(stderr: string): boolean } {
  return { phase: part.phase, readLater: part.custom ? unknownKindsOnly : undefined };
}

/**
 * kubectl refused the part only because it does not know its kinds yet: `no matches for kind`
 * (its REST mapper), or, when it validates first, the schema lookup of the kind failing
 * (`error validating data: the server could not find the requested resource`).
 */
function unknownKindsOnly(stderr: string): boolean {
  const errors = errorLines(stderr);
  return (
    errors.length > 0 &&
    errors.every((line) =>
      /no matches for kind|ensure CRDs are installed first|error validating data: the server could not find the requested resource/.test(
        line,
      ),
    )
  );
}

function describe(part: RunPart): string[] {
  return part.documents.map(
    (document) => `${document.kind ?? 'object'}${document.name ? ` "${document.name}"` : ''} (${document.where})`,
  );
}

function noObjects(): InputError {
  return new InputError(
    'the manifests hold no Kubernetes objects (kubectl found none to apply). Check the -f/-k arguments; nothing was applied.',
  );
}
