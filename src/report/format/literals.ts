// Finds many literal strings in a text in one pass, for the Redactor: an Aho–Corasick automaton
// over the first PREFIX_LENGTH code units of each literal, the rest checked with startsWith where
// a prefix is found. One regular expression of every literal does not scale: V8 refuses a pattern
// of some tens of KB ("Regular expression too large"), and one Secret value can be 1 MiB.
//
// Time: one step per code unit of the text (amortised), plus a check of the literals whose prefix
// was found (usually none); a check that fails costs as far as text and literal agree, so a text of
// many near-copies of a long literal is the slow case. Memory: at most PREFIX_LENGTH nodes per
// literal, however long it is.

/** Long enough that different literals rarely share a prefix, short enough to bound the nodes. */
export const PREFIX_LENGTH = 32;

const NONE = -1;
const ROOT = 0;

// A node is FIELDS consecutive numbers, so what one step reads of a node shares a cache line (an
// array per field cost a big automaton several memory reads a step).
/** The code unit on the edge into the node. */
const CODE = 0;
const CHILD_COUNT = 1;
const FIRST_CHILD = 2;
const NEXT_SIBLING = 3;
/** The longest proper suffix of the node's path that is a path too. */
const FAILURE = 4;
/** The nearest node on the failure chain (this one included) where prefixes end. */
const OUTPUT = 5;
const DEPTH = 6;
/** The first of the literals whose prefix ends here (the rest follow in nextEnding), in order of preference. */
const FIRST_ENDING = 7;
const FIELDS = 8;

export class LiteralMatcher {
  /** The root's transitions, one slot per UTF-16 code unit: the busiest node, looked up at every step. */
  private readonly rootChildren = new Int32Array(0x10000).fill(NONE);
  private readonly nodes: Int32Array;
  private nodeCount = 1;
  private readonly nextEnding: Int32Array;
  /**
   * Most nodes have one child: a lookup compares one code unit. The edges out of nodes with
   * several are in one hash table, built once the trie is.
   */
  private edges: EdgeTable | undefined;
  /** How far before the code unit where a prefix ends its literal can start. */
  private readonly window: number;

  /**
   * literals in order of preference: where several match at the same place, the first one listed
   * wins (the Redactor lists its forms longest first).
   */
  constructor(private readonly literals: readonly string[]) {
    let capacity = 1;
    for (const literal of literals) capacity += Math.min(literal.length, PREFIX_LENGTH);
    this.nodes = new Int32Array(capacity * FIELDS);
    for (let node = 0; node < capacity; node++) {
      this.set(node, FIRST_CHILD, NONE);
      this.set(node, NEXT_SIBLING, NONE);
      this.set(node, OUTPUT, NONE);
      this.set(node, FIRST_ENDING, NONE);
    }
    this.nextEnding = new Int32Array(literals.length).fill(NONE);
    let window = 0;
    // Last to first: each literal goes in front of its node's list, which ends up in order.
    for (let index = literals.length - 1; index >= 0; index--) {
      const literal = literals[index]!;
      const length = Math.min(literal.length, PREFIX_LENGTH);
      if (length === 0) continue;
      window = Math.max(window, length);
      let node = ROOT;
      for (let position = 0; position < length; position++) {
        const code = literal.charCodeAt(position);
        const next = this.linkedChild(node, code);
        node = next === NONE ? this.addChild(node, code) : next;
      }
      this.nextEnding[index] = this.get(node, FIRST_ENDING);
      this.set(node, FIRST_ENDING, index);
    }
    this.window = window;
    this.edges = this.indexEdges();
    this.linkFailures();
  }

  /**
   * The text with every match replaced: leftmost first, then the preferred literal at that place,
   * never overlapping an earlier match. Returns the same string when nothing matches.
   */
  replace(text: string, replacement: (literal: number) => string): string {
    const window = this.window;
    if (window === 0) return text;
    // Prefixes found, by where they start (modulo the window). A start is settled once the scan is
    // past the end of the longest prefix that could start there.
    let found: Array<number[] | undefined> | undefined;
    const parts: string[] = [];
    let copiedUpTo = 0;
    const settle = (start: number) => {
      const ends = found![start % window];
      if (!ends) return;
      found![start % window] = undefined;
      if (start < copiedUpTo) return;
      const literal = this.preferredAt(text, start, ends);
      if (literal === NONE) return;
      parts.push(text.slice(copiedUpTo, start), replacement(literal));
      copiedUpTo = start + this.literals[literal]!.length;
    };
    let node = ROOT;
    for (let position = 0; position < text.length; position++) {
      node = this.step(node, text.charCodeAt(position));
      for (let end = this.get(node, OUTPUT); end !== NONE; end = this.get(this.get(end, FAILURE), OUTPUT)) {
        const start = position + 1 - this.get(end, DEPTH);
        if (start < copiedUpTo) continue;
        found ??= new Array<number[] | undefined>(window);
        (found[start % window] ??= []).push(end);
      }
      if (found && position + 1 >= window) {
        settle(position + 1 - window);
        if (copiedUpTo > position + 1) {
          // A long literal was replaced: whatever starts inside it is spoken for. The scan goes on
          // from its end, so a text made mostly of a 1 MiB value is not walked through the automaton.
          found = undefined;
          node = ROOT;
          position = copiedUpTo - 1;
        }
      }
    }
    if (found) for (let start = Math.max(0, text.length + 1 - window); start < text.length; start++) settle(start);
    if (parts.length === 0) return text;
    parts.push(text.slice(copiedUpTo));
    return parts.join('');
  }

  /** The most preferred literal that matches in full at start, among those whose prefix ends at one of ends. */
  private preferredAt(text: string, start: number, ends: readonly number[]): number {
    let best = NONE;
    for (const end of ends) {
      for (
        let literal = this.get(end, FIRST_ENDING);
        literal !== NONE && (best === NONE || literal < best);
        literal = this.nextEnding[literal]!
      ) {
        if (text.startsWith(this.literals[literal]!, start)) {
          best = literal;
          break;
        }
      }
    }
    return best;
  }

  private step(node: number, code: number): number {
    for (let state = node; ; state = this.get(state, FAILURE)) {
      const next = this.child(state, code);
      if (next !== NONE) return next;
      if (state === ROOT) return ROOT;
    }
  }

  private child(node: number, code: number): number {
    if (node === ROOT) return this.rootChildren[code]!;
    const count = this.get(node, CHILD_COUNT);
    if (count === 1) {
      const only = this.get(node, FIRST_CHILD);
      return this.get(only, CODE) === code ? only : NONE;
    }
    return count === 0 ? NONE : this.edges!.get(node, code);
  }

  /** While the trie grows, before the edge table exists. */
  private linkedChild(node: number, code: number): number {
    if (node === ROOT) return this.rootChildren[code]!;
    for (let child = this.get(node, FIRST_CHILD); child !== NONE; child = this.get(child, NEXT_SIBLING)) {
      if (this.get(child, CODE) === code) return child;
    }
    return NONE;
  }

  private addChild(node: number, code: number): number {
    const child = this.nodeCount++;
    this.set(child, CODE, code);
    this.set(child, DEPTH, this.get(node, DEPTH) + 1);
    this.set(child, NEXT_SIBLING, this.get(node, FIRST_CHILD));
    this.set(node, FIRST_CHILD, child);
    this.set(node, CHILD_COUNT, this.get(node, CHILD_COUNT) + 1);
    if (node === ROOT) this.rootChildren[code] = child;
    return child;
  }

  private indexEdges(): EdgeTable {
    let branching = 0;
    for (let node = ROOT + 1; node < this.nodeCount; node++)
      if (this.get(node, CHILD_COUNT) > 1) branching += this.get(node, CHILD_COUNT);
    const edges = new EdgeTable(branching);
    for (let node = ROOT + 1; node < this.nodeCount; node++) {
      if (this.get(node, CHILD_COUNT) < 2) continue;
      for (let child = this.get(node, FIRST_CHILD); child !== NONE; child = this.get(child, NEXT_SIBLING))
        edges.set(node, this.get(child, CODE), child);
    }
    return edges;
  }

  /** Breadth first, so the failure of a node's parent is known before the node's own. */
  private linkFailures(): void {
    const queue = new Int32Array(this.nodeCount);
    let tail = 0;
    for (let child = this.get(ROOT, FIRST_CHILD); child !== NONE; child = this.get(child, NEXT_SIBLING))
      queue[tail++] = child;
    for (let head = 0; head < tail; head++) {
      const node = queue[head]!;
      const fallback = this.get(node, FAILURE);
      this.set(node, OUTPUT, this.get(node, FIRST_ENDING) !== NONE ? node : this.get(fallback, OUTPUT));
      for (let child = this.get(node, FIRST_CHILD); child !== NONE; child = this.get(child, NEXT_SIBLING)) {
        this.set(child, FAILURE, this.step(fallback, this.get(child, CODE)));
        queue[tail++] = child;
      }
    }
  }

  private get(node: number, field: number): number {
    return this.nodes[node * FIELDS + field]!;
  }

  private set(node: number, field: number, value: number): void {
    this.nodes[node * FIELDS + field] = value;
  }
}

/** Open addressing over (node, code unit) pairs, in typed arrays: a Map per node costs far more. */
class EdgeTable {
  private readonly slots: Int32Array;
  private readonly mask: number;

  constructor(edges: number) {
    let size = 2;
    while (size < edges * 2) size *= 2;
    // Per slot: the node, the code unit, the child.
    this.slots = new Int32Array(size * 3).fill(NONE);
    this.mask = size - 1;
  }

  get(node: number, code: number): number {
    for (let slot = this.slotOf(node, code); ; slot = (slot + 1) & this.mask) {
      const at = this.slots[slot * 3]!;
      if (at === NONE) return NONE;
      if (at === node && this.slots[slot * 3 + 1] === code) return this.slots[slot * 3 + 2]!;
    }
  }

  set(node: number, code: number, child: number): void {
    let slot = this.slotOf(node, code);
    while (this.slots[slot * 3] !== NONE) slot = (slot + 1) & this.mask;
    this.slots[slot * 3] = node;
    this.slots[slot * 3 + 1] = code;
    this.slots[slot * 3 + 2] = child;
  }

  private slotOf(node: number, code: number): number {
    let hash = Math.imul(node, 0x9e3779b1) ^ code;
    hash = Math.imul(hash ^ (hash >>> 15), 0x85ebca6b);
    return (hash ^ (hash >>> 13)) & this.mask;
  }
}
