// Which kubectl apply each document goes to. Pure: phase-files.ts reads the inputs and writes each
// part's documents, byte for byte, where kubectl reads them.
//
// An apply runs in phases when it holds a CustomResourceDefinition or an object annotated
// kguard.dev/phase (otherwise it is one kubectl apply, as always):
//   definitions  CustomResourceDefinitions and Namespaces: other objects need them to exist at all
//                (a custom resource cannot even be read by kubectl before its CRD is Established);
//   pre          objects annotated kguard.dev/phase: pre (a migration Job), which must be healthy
//                (a Job: Complete) before the workloads change;
//   main         everything else;
//   post         objects annotated kguard.dev/phase: post, applied once the main phase is healthy.
// The same order as Helm's hooks (CRDs from crds/ first, then pre-install/pre-upgrade hooks, the
// release, post-install/post-upgrade hooks) and Argo CD's sync phases (PreSync, Sync, PostSync),
// which also put Namespaces and CRDs first within a phase.
// Within a phase, documents of kinds that a CRD of this same apply defines form a part of their
// own: kubectl may not know those kinds before that CRD is applied, so that part may have to be
// read only then (run/apply/phases.ts).
import { InputError } from '../errors.js';
import type { ApplyPhase } from '../model/result.js';
import type { DocumentHead, ManifestDocument } from './documents.js';
import { PHASE_ANNOTATION } from './documents.js';

export type PhaseName = ApplyPhase;

/** The phases in the order they are applied (and restored in reverse). */
export const PHASES: readonly PhaseName[] = ['definitions', 'pre', 'main', 'post'];

/** A document and where the user wrote it (for messages: "web.yaml (document 2)"). */
export interface PlacedDocument {
  origin: string;
  document: ManifestDocument;
}

export interface PlannedPart {
  phase: PhaseName;
  /** Its documents are of kinds a CRD of this apply defines. */
  custom: boolean;
  documents: PlacedDocument[];
}

/**
 * The parts of a phased apply, in apply order (empty ones left out); undefined when the apply
 * needs no phases: it holds no CRD and no kguard.dev/phase annotation.
 */
export function planPhases(documents: readonly PlacedDocument[]): PlannedPart[] | undefined {
  const heads = documents.flatMap(({ document }) =>
    document.head ? [document.head, ...(document.head.items ?? [])] : [],
  );
  const defined = new Set(
    heads.flatMap((head) => (head.defines ? [`${head.defines.group}/${head.defines.kind}`] : [])),
  );
  const annotated = heads.some((head) => head.phase !== undefined);
  if (defined.size === 0 && !annotated) return undefined;
  const parts = new Map<string, PlannedPart>();
  for (const placed of documents) {
    const phase = phaseOfDocument(placed);
    const custom = phase !== 'definitions' && isCustom(placed.document.head, defined);
    const key = `${PHASES.indexOf(phase)}${custom ? 'b' : 'a'}`;
    let part = parts.get(key);
    if (!part) parts.set(key, (part = { phase, custom, documents: [] }));
    part.documents.push(placed);
  }
  return [...parts.entries()].sort(([left], [right]) => left.localeCompare(right)).map(([, part]) => part);
}

/** A document's phase; a List's is its items' (Namespaces aside), which must agree. */
export function phaseOfDocument(placed: PlacedDocument): PhaseName {
  const head = placed.document.head;
  if (!head) return 'main';
  if (!head.items) return phaseOfHead(head, placed);
  const phases = new Set(head.items.filter((item) => !isNamespace(item)).map((item) => phaseOfHead(item, placed)));
  if (phases.size === 0) return head.items.length > 0 ? 'definitions' : 'main';
  if (phases.size > 1) {
    throw new InputError(
      `${where(placed)}: this ${head.kind} holds objects of different phases (${[...phases].join(', ')}): kguard applies each phase with its own kubectl apply and cannot split one document. Next: write its items as separate documents (---); nothing was applied.`,
    );
  }
  return [...phases][0]!;
}

function phaseOfHead(head: DocumentHead, placed: PlacedDocument): PhaseName {
  if (head.defines || isNamespace(head)) return 'definitions';
  if (head.phase === undefined || head.phase === 'main') return 'main';
  if (head.phase === 'pre' || head.phase === 'post') return head.phase;
  throw new InputError(
    `${where(placed)}: ${head.kind ?? 'object'} ${JSON.stringify(head.name ?? '')} has ${PHASE_ANNOTATION}: ${JSON.stringify(head.phase)}, which is not a phase. Next: use "pre" (applied and healthy before the rest) or "post" (applied once the rest is healthy); nothing was applied.`,
  );
}

function isNamespace(head: DocumentHead): boolean {
  return head.kind === 'Namespace' && head.apiVersion === 'v1';
}

function isCustom(head: DocumentHead | undefined, defined: ReadonlySet<string>): boolean {
  if (!head) return false;
  if (head.items) return head.items.some((item) => isCustom(item, defined));
  const slash = head.apiVersion?.indexOf('/') ?? -1;
  const group = slash === -1 ? '' : head.apiVersion!.slice(0, slash);
  return defined.has(`${group}/${head.kind ?? ''}`);
}

/** "web.yaml (document 2)", or the file alone when it is one document. */
export function where(placed: PlacedDocument): string {
  return placed.document.json ? placed.origin : `${placed.origin} (document ${placed.document.index})`;
}
