// Two texts as a unified diff, the way `kubectl diff` shows an object (it runs `diff -u -N`):
// `--- live`/`+++ after` headers, hunks with 3 lines of context. A longest common subsequence
// over lines: objects are small, and the output must not depend on an external diff. Pure.

export function unifiedDiff(from: string, to: string, labels: { from: string; to: string }, context = 3): string[] {
  const a = from.split('\n');
  const b = to.split('\n');
  if (a[a.length - 1] === '') a.pop();
  if (b[b.length - 1] === '') b.pop();
  const ops = editScript(a, b);
  if (ops.every((op) => op.kind === ' ')) return [];
  const lines = [`--- ${labels.from}`, `+++ ${labels.to}`];
  let index = 0;
  while (index < ops.length) {
    // The next change, with its context before it.
    while (index < ops.length && ops[index]!.kind === ' ') index += 1;
    if (index >= ops.length) break;
    const start = Math.max(0, index - context);
    let end = index;
    // A hunk goes on while the next change is within 2 × context unchanged lines.
    for (let quiet = 0; end < ops.length && quiet <= 2 * context; end += 1)
      quiet = ops[end]!.kind === ' ' ? quiet + 1 : 0;
    end = Math.min(ops.length, trimTail(ops, end, context));
    const hunk = ops.slice(start, end);
    const fromStart = hunk[0]!.fromLine;
    const toStart = hunk[0]!.toLine;
    const fromCount = hunk.filter((op) => op.kind !== '+').length;
    const toCount = hunk.filter((op) => op.kind !== '-').length;
    lines.push(
      `@@ -${fromStart + (fromCount > 0 ? 1 : 0)},${fromCount} +${toStart + (toCount > 0 ? 1 : 0)},${toCount} @@`,
    );
    for (const op of hunk) lines.push(`${op.kind}${op.text}`);
    index = end;
  }
  return lines;
}

interface Op {
  kind: ' ' | '-' | '+';
  text: string;
  /** Lines of `from` and `to` before this one. */
  fromLine: number;
  toLine: number;
}

/** The end of a hunk: its last change plus `context` unchanged lines. */
function trimTail(ops: readonly Op[], end: number, context: number): number {
  let last = end - 1;
  while (last >= 0 && ops[last]!.kind === ' ') last -= 1;
  return last + 1 + context;
}

function editScript(a: readonly string[], b: readonly string[]): Op[] {
  // lengths[i][j]: the longest common subsequence of a[i:] and b[j:].
  const lengths = Array.from({ length: a.length + 1 }, () => new Uint32Array(b.length + 1));
  for (let i = a.length - 1; i >= 0; i -= 1) {
    for (let j = b.length - 1; j >= 0; j -= 1) {
      lengths[i]![j] = a[i] === b[j] ? lengths[i + 1]![j + 1]! + 1 : Math.max(lengths[i + 1]![j]!, lengths[i]![j + 1]!);
    }
  }
  const ops: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      ops.push({ kind: ' ', text: a[i]!, fromLine: i, toLine: j });
      i += 1;
      j += 1;
    } else if (j < b.length && (i >= a.length || lengths[i]![j + 1]! > lengths[i + 1]![j]!)) {
      ops.push({ kind: '+', text: b[j]!, fromLine: i, toLine: j });
      j += 1;
    } else {
      ops.push({ kind: '-', text: a[i]!, fromLine: i, toLine: j });
      i += 1;
    }
  }
  return ops;
}
