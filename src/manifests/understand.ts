// What an apply holds, in kubectl's own reading, and whether the API server would take it. Pure:
// the caller runs the dry runs (kubectl/client.ts) and hands their output here.
import type { KubeObject, ObjectRef } from '../objects/model.js';
import { objectKey, refOf } from '../objects/model.js';
import { changedPaths, contentOf } from '../objects/compare.js';

/** The objects kubectl would apply, first occurrence of each identity, in kubectl's order. */
export function objectsOfApply(objects: readonly KubeObject[]): ObjectRef[] {
  const seen = new Set<string>();
  const refs: ObjectRef[] = [];
  for (const object of objects) {
    const ref = refOf(object);
    const key = objectKey(ref);
    if (seen.has(key)) continue;
    seen.add(key);
    refs.push(ref);
  }
  return refs;
}

/**
 * Objects written more than once in one apply with different contents: kubectl applies each copy
 * in turn (it prints "configured" twice) and the last one wins, silently. kustomize refuses any
 * such id ("may not add resource with an already registered id"); kguard refuses copies that
 * differ, and names the fields. Identical copies change nothing and pass.
 */
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

export function differingDuplicates(objects: readonly KubeObject[]): Array<{ ref: ObjectRef; paths: string[] }> {
  const first = new Map<string, KubeObject>();
  const found = new Map<string, { ref: ObjectRef; paths: string[] }>();
  for (const object of objects) {
    const key = objectKey(refOf(object));
    const earlier = first.get(key);
    if (!earlier) {
      first.set(key, object);
      continue;
    }
    // kubectl's last-applied annotation holds each copy: it differs whenever they do, and says nothing more.
    const paths = changedPaths(contentOf(earlier), contentOf(object)).filter(
      (path) => path !== `metadata.annotations.${LAST_APPLIED}`,
    );
    if (paths.length > 0 && !found.has(key)) found.set(key, { ref: refOf(object), paths });
  }
  return [...found.values()];
}

export type DryRunJudgement =
  | { accepted: true; waived: Array<{ namespace: string; objects: ObjectRef[] }> }
  | { accepted: false; errors: string[] };

/**
 * A server dry run cannot create a Namespace, so objects inside a Namespace that the same apply
 * creates fail it with `namespaces "x" not found` (the NamespaceLifecycle admission plugin),
 * though the real apply, which creates the Namespace first, succeeds. Exactly those errors are
 * waived, each object named; any other error refuses the apply before anything changes.
 */
export function judgeServerDryRun(
  stderr: string,
  refs: readonly ObjectRef[],
  namespacesCreatedByApply: ReadonlySet<string>,
): DryRunJudgement {
  const errors = errorLines(stderr);
  const waivedNamespaces = new Set<string>();
  const refused: string[] = [];
  for (const line of errors) {
    const missing = /namespaces "([^"]+)" not found/.exec(line)?.[1];
    if (missing !== undefined && namespacesCreatedByApply.has(missing)) waivedNamespaces.add(missing);
    else refused.push(line);
  }
  if (refused.length > 0 || errors.length === 0)
    return { accepted: false, errors: refused.length > 0 ? refused : [stderr.trim()] };
  return {
    accepted: true,
    waived: [...waivedNamespaces].map((namespace) => ({
      namespace,
      objects: refs.filter((ref) => ref.namespace === namespace),
    })),
  };
}

/** kubectl prints one line per failed object (`Error from server (...)`, `error: ...`); warnings are not errors. */
export function errorLines(stderr: string): string[] {
  const lines = stderr.split('\n').map((line) => line.trim());
  const errors: string[] = [];
  for (const line of lines) {
    if (line === '' || /^Warning:/.test(line)) continue;
    if (/^(Error from server|error:|Error:)/.test(line) || errors.length === 0) errors.push(line);
    else errors[errors.length - 1] += ` ${line}`;
  }
  return errors;
}
