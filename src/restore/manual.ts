// What a person runs to finish a restore by hand, and the copy those commands read. Every command
// is one the API server takes (kinds/refusals.ts): an immutable ConfigMap is deleted and created,
// never replaced; a claim's storage request is never lowered; a finished Job is never created
// again; a deleted object is created, not replaced; a Job's copy carries no old controller-uid. Pure.
import { rowFor } from '../kinds/table.js';
import { withCurrentValues } from '../kinds/refusals.js';
import { sameContent } from '../objects/compare.js';
import { kubectlName, namespaceArgs, type KubeObject } from '../objects/model.js';
import { createFor, manualCopy, type RestoreStep } from './steps.js';

export interface ManualRestore {
  /** The copy the commands read (`-f FILE`): the caller writes it where only this user can read it. */
  copy?: KubeObject;
  commands(kubectl: (args: string[]) => string, copyFile?: string): string[];
}

const ONLY_IF = 'only if you decide the pre-apply copy should win';

/** Someone else's change is there: a write of the copy is the person's call, and says so. */
function onlyIfYouDecide(command: string): string {
  return command.includes('    # ') ? command.replace('    # ', `    # ${ONLY_IF}; `) : `${command}    # ${ONLY_IF}`;
}

/**
 * The commands that finish `step` by hand. `live` is the object as kguard last read it, when it
 * did (null: it is not there): someone else's change decides between a replace and a create.
 */
export function manualRestore(step: RestoreStep, live?: KubeObject | null): ManualRestore {
  const name = kubectlName(step.ref);
  const ns = namespaceArgs(step.ref);
  const deleteIt = (kubectl: (args: string[]) => string) => kubectl(['delete', name, ...ns]);
  switch (step.action) {
    case 'put-back':
      return backTo(step.before, live ?? step.applied, step);
    case 'replace':
      return {
        copy: step.copy,
        commands: (kubectl, file) => [
          deleteIt(kubectl),
          ...(file && step.copy ? [kubectl(['create', '-f', file])] : []),
        ],
      };
    case 'recreate':
      return { copy: step.copy, commands: (kubectl, file) => (file ? [kubectl(['create', '-f', file])] : []) };
    case 'delete':
      return { commands: (kubectl) => [deleteIt(kubectl)] };
    case 'keep': {
      const { before, applied } = step;
      if (!before) return { commands: (kubectl) => [deleteIt(kubectl)] };
      const someoneElse = step.reason === 'conflict' || step.reason === 'gone';
      // What is there now: the live object when it was read, else the applied one (nothing, when someone else deleted it).
      const current = live === undefined ? (step.reason === 'gone' ? undefined : applied) : (live ?? undefined);
      const manual = !current
        ? createAgain(step, before)
        : current.metadata.uid !== before.metadata.uid
          ? replaceNew(step, before)
          : backTo(before, current, step);
      if (!someoneElse) return manual;
      if (!current) {
        // Deleted by someone else: there is nothing to look at; the copy comes back only if a person wants it.
        return {
          copy: manual.copy,
          commands: (kubectl, file) =>
            manual
              .commands(kubectl, file)
              .map((command) => `${command}    # only if you decide the pre-apply copy should come back`),
        };
      }
      return {
        copy: manual.copy,
        commands: (kubectl, file) => [
          kubectl(['get', name, ...ns, '-o', 'yaml']),
          ...manual.commands(kubectl, file).map(onlyIfYouDecide),
        ],
      };
    }
  }
}

/** The pre-apply copy written over the same object: a replace, or what its kind's refusals allow. */
function backTo(before: KubeObject, current: KubeObject, step: RestoreStep): ManualRestore {
  const name = kubectlName(step.ref);
  const ns = namespaceArgs(step.ref);
  const rule = rowFor(step.ref).putBack?.(before, current);
  if (rule?.how === 'delete-and-create') {
    return {
      copy: manualCopy(before, true),
      commands: (kubectl, file) => [
        kubectl(['delete', name, ...ns]),
        ...(file ? [kubectl(['create', '-f', file])] : []),
      ],
    };
  }
  if (rule?.how === 'impossible') {
    // Only the rest of the copy can go back; when nothing else differs there is nothing to write.
    const partial = manualCopy(withCurrentValues(before, current, rule.fields), false);
    // kubectl's own record of the manifest changes with the field that stays: it is no reason to write.
    if (sameContent(withoutLastApplied(partial), withoutLastApplied(current)))
      return { commands: (kubectl) => [kubectl(['get', name, ...ns, '-o', 'yaml'])] };
    const kept = rule.fields.map((field) => field.join('.')).join(', ');
    return {
      copy: partial,
      commands: (kubectl, file) =>
        file ? [`${kubectl(['replace', '-f', file])}    # puts back the rest of it; ${kept} stays as it is`] : [],
    };
  }
  return {
    copy: manualCopy(before, false),
    commands: (kubectl, file) =>
      file ? [kubectl(['replace', '-f', file])] : [kubectl(['get', name, ...ns, '-o', 'yaml'])],
  };
}

function withoutLastApplied(object: KubeObject): KubeObject {
  const { [LAST_APPLIED]: _lastApplied, ...annotations } = object.metadata.annotations ?? {};
  return { ...object, metadata: { ...object.metadata, annotations } };
}

const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

/** It is not there: create the copy (as its kind prepares it), unless its kind never creates it again. */
function createAgain(step: RestoreStep, before: KubeObject): ManualRestore {
  const { copy } = createFor(step.ref, before);
  return { copy, commands: (kubectl, file) => (copy && file ? [kubectl(['create', '-f', file])] : []) };
}

/** Another object of that name is there (a new uid): it goes, and the copy is created in its place. */
function replaceNew(step: RestoreStep, before: KubeObject): ManualRestore {
  const { copy } = createFor(step.ref, before);
  return {
    copy,
    commands: (kubectl, file) => [
      kubectl(['delete', kubectlName(step.ref), ...namespaceArgs(step.ref)]),
      ...(copy && file ? [kubectl(['create', '-f', file])] : []),
    ],
  };
}
