// How the events of a phased apply read (run/apply/phases.ts): CRDs and Namespaces first, then
// kguard.dev/phase: pre objects, the rest, and kguard.dev/phase: post objects.
import type { RunEvent } from '../../model/events.js';
import type { ApplyPhase } from '../../model/result.js';
import { describeObject, type ObjectRef } from '../../objects/model.js';
import { firstEight, plural } from './line.js';

type Tone = 'ok' | 'fail' | 'warn' | 'info' | 'undo' | 'alarm';
type PhaseEvent = Extract<RunEvent, { kind: 'phase' | 'phase-deferred' | 'phase-skipped' }>;
type PhaseFormatters = {
  [K in PhaseEvent['kind']]: (event: Extract<PhaseEvent, { kind: K }>) => {
    tone: Tone;
    text: string;
    details?: string[];
  };
};

export const PHASE_TEXT: Record<ApplyPhase, string> = {
  definitions: 'CustomResourceDefinitions and Namespaces',
  pre: 'kguard.dev/phase: pre',
  main: 'the workloads and the rest',
  post: 'kguard.dev/phase: post',
};

export const PHASE_FORMATTERS: PhaseFormatters = {
  phase: (event) => ({
    tone: 'info',
    text: `phase ${event.number}/${event.of}, ${event.phase} (${PHASE_TEXT[event.phase]}): applying ${event.objects.length} object${plural(event.objects.length)}: ${listObjects(event.objects)}`,
  }),
  'phase-deferred': (event) => ({
    tone: 'info',
    text:
      `phase ${event.phase}: ${event.documents.length} document${plural(event.documents.length)} of kinds that a CustomResourceDefinition of this apply defines: ` +
      (event.dryRun
        ? 'kubectl cannot read them before that CRD is Established, so this preview cannot dry-run them; the apply would read, dry-run and apply them once the CRDs are Established:'
        : 'kubectl can read them only once that CRD is Established: they are read, dry-run and leased then, before their own apply:'),
    details: event.documents,
  }),
  'phase-skipped': (event) => ({
    tone: 'warn',
    text: `phase ${event.phase} (${PHASE_TEXT[event.phase]}) was not applied (${event.because}): its objects are left as they were`,
    details: [...event.objects.map(describeObject), ...event.documents],
  }),
};

function listObjects(objects: readonly ObjectRef[]): string {
  return firstEight(objects, describeObject);
}
