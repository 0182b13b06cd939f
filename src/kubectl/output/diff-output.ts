// `kubectl diff` prints one unified diff per object, each headed by
// `diff -u -N /tmp/LIVE-…/<group.>version.Kind.namespace.name /tmp/MERGED-…/…`. This splits it
// by object, matching the names kubectl gives its files against the objects of the apply (names
// may hold dots, so they are matched, not parsed). Pure.
import { groupOf, objectKey, versionOf, type ObjectRef } from '../../objects/model.js';

export function diffsByObject(stdout: string, refs: readonly ObjectRef[]): Map<string, string[]> {
  const byFile = new Map<string, ObjectRef>();
  for (const ref of refs) {
    const group = groupOf(ref.apiVersion);
    const head = `${group ? `${group}.` : ''}${versionOf(ref.apiVersion)}.${ref.kind}`;
    byFile.set(`${head}.${ref.namespace}.${ref.name}`, ref);
    if (ref.namespace === '') byFile.set(`${head}.${ref.name}`, ref);
  }
  const diffs = new Map<string, string[]>();
  let current: string[] | undefined;
  for (const line of stdout.split('\n')) {
    const header = /^diff -u -N \S*\/LIVE-[^/\s]*\/(\S+) /.exec(line);
    if (header) {
      const ref = byFile.get(header[1]!);
      current = ref ? [] : undefined;
      if (ref) diffs.set(objectKey(ref), current!);
      continue;
    }
    // kubectl's own ---/+++ lines name its temporary files: nothing a reader needs.
    if (/^(---|\+\+\+) \S*\/(LIVE|MERGED)-/.test(line)) continue;
    current?.push(line);
  }
  for (const lines of diffs.values()) while (lines.length > 0 && lines.at(-1) === '') lines.pop();
  return diffs;
}
