// The krew manifest template (.krew.yaml), rendered as krew-release-bot renders it: a valid krew
// Plugin for the name rollout-guard, whose binary is the one kubectl runs for
// `kubectl rollout-guard` and the one the package installs.
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { PLUGIN_BINARY, PLUGIN_NAME } from '../../src/api/environment.js';
import { KREW_PLATFORMS, krewArchive, packKrew, parseChecksums, renderKrew } from '../../build/krew.js';

const template = await readFile(new URL('../../.krew.yaml', import.meta.url), 'utf8');
const manifest = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as {
  bin: Record<string, string>;
};

const SUMS = new Map(
  KREW_PLATFORMS.map(({ os, arch }, index) => [krewArchive(os, arch), 'abcd'[index]!.repeat(64)] as const),
);

/** The release's rendering (build/krew.ts), as krew-release-bot renders the template. */
function render(tag: string): string {
  return renderKrew(template, tag, SUMS);
}

interface KrewPlugin {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
  spec: {
    version: string;
    homepage: string;
    shortDescription: string;
    description: string;
    platforms: Array<{
      selector: { matchLabels: { os: string; arch: string } };
      uri: string;
      sha256: string;
      bin: string;
    }>;
  };
}

describe('.krew.yaml', () => {
  const plugin = parse(render('v1.2.3')) as KrewPlugin;

  it('renders to a krew Plugin named rollout-guard, whose binary kubectl runs as kubectl rollout-guard', () => {
    expect(plugin).toMatchObject({
      apiVersion: 'krew.googlecontainertools.github.com/v1alpha2',
      kind: 'Plugin',
      metadata: { name: PLUGIN_NAME },
      spec: { version: 'v1.2.3' },
    });
    expect(PLUGIN_BINARY).toBe(`kubectl-${PLUGIN_NAME.replace(/-/g, '_')}`);
    expect(manifest.bin[PLUGIN_BINARY]).toBe(`bin/${PLUGIN_BINARY}`);
    for (const platform of plugin.spec.platforms) {
      expect(platform.bin).toBe(PLUGIN_BINARY);
      expect(platform.uri).toBe(
        `https://github.com/kguard-dev/kguard/releases/download/v1.2.3/${PLUGIN_BINARY}-${platform.selector.matchLabels.os}-${platform.selector.matchLabels.arch}.tar.gz`,
      );
      expect(platform.sha256).toMatch(/^[0-9a-f]{64}$/);
    }
    expect(
      plugin.spec.platforms.map(({ selector }) => `${selector.matchLabels.os}/${selector.matchLabels.arch}`),
    ).toEqual(['linux/amd64', 'linux/arm64', 'darwin/amd64', 'darwin/arm64']);
  });

  it("follows krew's naming guide and review habits: lowercase with dashes, no kube prefix, a short description", () => {
    expect(plugin.metadata.name).toMatch(/^[a-z]+(-[a-z]+)*$/);
    expect(plugin.metadata.name).not.toMatch(/^kube/);
    expect(plugin.spec.shortDescription.length).toBeLessThanOrEqual(50);
    expect(Math.max(...plugin.spec.description.split('\n').map((line) => line.length))).toBeLessThanOrEqual(70);
  });
});

describe('the krew release (build/krew.ts)', () => {
  it("puts each platform's own sum beside its URL, and refuses an asset without one or a tag that is not v<semver>", () => {
    const plugin = parse(render('v1.2.3')) as KrewPlugin;
    for (const platform of plugin.spec.platforms)
      expect(platform.sha256).toBe(SUMS.get(path.posix.basename(platform.uri)));
    expect(() => renderKrew(template, 'v1.2.3', new Map())).toThrow(/no sha256 for kubectl-rollout_guard-linux-amd64/);
    expect(() => renderKrew(template, '1.2.3', SUMS)).toThrow(/v<semver>/);
  });

  it('reads sha256sum lines', () => {
    expect(parseChecksums(`${'a'.repeat(64)}  kguard-linux-x64\n${'b'.repeat(64)} *kguard-darwin-arm64\n`)).toEqual(
      new Map([
        ['kguard-linux-x64', 'a'.repeat(64)],
        ['kguard-darwin-arm64', 'b'.repeat(64)],
      ]),
    );
  });

  it('packs the plugin, its completion helper and LICENSE per platform, the same bytes each time', async () => {
    const directory = await mkdtemp(path.join(tmpdir(), 'kguard-krew-test-'));
    try {
      for (const { asset } of KREW_PLATFORMS)
        await writeFile(path.join(directory, asset), `#!/bin/sh\necho ${asset}\n`);
      const archives = packKrew(directory);
      expect(archives).toEqual(KREW_PLATFORMS.map(({ os, arch }) => krewArchive(os, arch)));
      const listing = execFileSync('tar', ['-tzf', path.join(directory, archives[0]!)], { encoding: 'utf8' });
      expect(listing.trim().split('\n').sort()).toEqual(['LICENSE', PLUGIN_BINARY, 'kubectl_complete-rollout_guard']);
      const first = await readFile(path.join(directory, archives[0]!));
      packKrew(directory);
      expect((await readFile(path.join(directory, archives[0]!))).equals(first)).toBe(true);
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });
});
