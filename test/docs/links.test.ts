// The documentation holds together: every relative link in README.md, CONTRIBUTING.md and docs/
// names a file that exists and, for a Markdown file, an anchor that is one of its headings (GitHub's
// slugs); and the README stays a front page (at most 300 lines).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const REPO = new URL('../../', import.meta.url).pathname;
const README_LINES = 300;

function markdownFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(directory, entry.name);
    return entry.isDirectory() ? markdownFiles(full) : entry.name.endsWith('.md') ? [full] : [];
  });
}

/** The pages checked: the front page, the contributor's guide and every page under docs/. */
function pages(): string[] {
  return [path.join(REPO, 'README.md'), path.join(REPO, 'CONTRIBUTING.md'), ...markdownFiles(path.join(REPO, 'docs'))];
}

/** The text outside fenced code blocks, line by line (a fenced line is blank, so line numbers stay). */
function prose(text: string): string[] {
  let fence: string | null = null;
  return text.split('\n').map((line) => {
    const opening = /^\s*(`{3,}|~{3,})/.exec(line);
    if (fence === null && opening) {
      fence = opening[1]!;
      return '';
    }
    if (fence !== null) {
      if (line.trim().startsWith(fence)) fence = null;
      return '';
    }
    return line;
  });
}

/** GitHub's anchor for a heading: lower-case, links and backticks dropped, punctuation but `-` and `_` dropped, spaces to `-`. */
function slug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`/g, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** Every anchor a page has: its headings' slugs, a repeated one with `-1`, `-2`… as GitHub numbers them. */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const found = new Set<string>();
  for (const line of prose(text)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const base = slug(heading[1]!);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    found.add(count === 0 ? base : `${base}-${count}`);
  }
  for (const [, id] of text.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) found.add(id!);
  return found;
}

/** The relative links of a page (inline code and code blocks skipped), with their line numbers. */
function relativeLinks(text: string): { line: number; target: string }[] {
  return prose(text).flatMap((line, index) =>
    [...line.replace(/`[^`]*`/g, '``').matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)]
      .map((match) => match[1]!)
      .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target))
      .map((target) => ({ line: index + 1, target })),
  );
}

/** What is wrong with each relative link of a page: a file that does not exist or an anchor it has not. */
function brokenLinks(page: string): string[] {
  const text = readFileSync(page, 'utf8');
  const where = path.relative(REPO, page);
  return relativeLinks(text).flatMap(({ line, target }) => {
    const [file, anchor] = target.split('#', 2) as [string, string | undefined];
    const resolved = file === '' ? page : path.resolve(path.dirname(page), decodeURIComponent(file));
    if (!existsSync(resolved)) return [`${where}:${line}: ${target}: no such file`];
    if (anchor === undefined || anchor === '' || !resolved.endsWith('.md')) return [];
    return anchors(readFileSync(resolved, 'utf8')).has(decodeURIComponent(anchor))
      ? []
      : [`${where}:${line}: ${target}: ${path.relative(REPO, resolved)} has no heading #${anchor}`];
  });
}

describe('the documentation', () => {
  it('has only relative links whose file exists and whose anchor is a heading there', () => {
    expect(pages().length).toBeGreaterThan(5);
    expect(pages().flatMap(brokenLinks)).toEqual([]);
  });

  it(`keeps the README a front page: at most ${README_LINES} lines`, () => {
    const lines = readFileSync(path.join(REPO, 'README.md'), 'utf8').trimEnd().split('\n').length;
    expect(lines).toBeLessThanOrEqual(README_LINES);
  });

  it('links every docs page from the README', () => {
    const readme = readFileSync(path.join(REPO, 'README.md'), 'utf8');
    const linked = new Set(
      relativeLinks(readme).map(({ target }) => path.resolve(REPO, decodeURIComponent(target.split('#')[0]!))),
    );
    const unlinked = pages()
      .filter((page) => page.startsWith(path.join(REPO, 'docs') + path.sep))
      .filter((page) => !linked.has(page))
      .map((page) => path.relative(REPO, page));
    expect(unlinked).toEqual([]);
  });

  it('finds what is broken (the check itself works)', () => {
    expect(slug('Journal, leases, `kguard rollback` and `kguard status`')).toBe(
      'journal-leases-kguard-rollback-and-kguard-status',
    );
    expect(slug('Fleets: many clusters, canary first, all or nothing')).toBe(
      'fleets-many-clusters-canary-first-all-or-nothing',
    );
    expect(slug('What kguard judges: what the apply changed, at the right moment')).toBe(
      'what-kguard-judges-what-the-apply-changed-at-the-right-moment',
    );
    expect([...anchors('# A\n```\n# not a heading\n```\n## A\n')]).toEqual(['a', 'a-1']);
    expect(relativeLinks('see [x](a.md#b), `[y](c.md)`, [z](https://e.org)\n```\n[w](d.md)\n```')).toEqual([
      { line: 1, target: 'a.md#b' },
    ]);
  });
});
