// The GitHub Action runs the committed bundle, so a bundle older than the sources would ship old
// code: this fails until `npm run build:action` has been run and its output committed.
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { ACTION_BUNDLE, actionBuildOptions, bundleText, ROOT } from '../../build/bundle.js';

describe(ACTION_BUNDLE, () => {
  it('is what npm run build:action builds from the sources now (run it and commit the bundle)', async () => {
    const committed = await readFile(`${ROOT}${ACTION_BUNDLE}`, 'utf8');
    const fresh = await bundleText(actionBuildOptions());
    // Compared by length first, so a stale bundle fails with a short message, not a 1 MB diff.
    expect(committed.length, `${ACTION_BUNDLE} is stale: run npm run build:action and commit it`).toBe(fresh.length);
    expect(committed === fresh, `${ACTION_BUNDLE} is stale: run npm run build:action and commit it`).toBe(true);
  });

  it('carries no source map and no absolute path of the machine that built it', async () => {
    const committed = await readFile(`${ROOT}${ACTION_BUNDLE}`, 'utf8');
    expect(committed).not.toContain('sourceMappingURL');
    expect(committed).not.toContain(ROOT);
  });
});
