// The krew manifest template (.krew.yaml), rendered as krew-release-bot renders it: a valid krew
// Plugin for the name rollout-guard, whose binary is the one kubectl runs for
// `kubectl rollout-guard` and the one the package installs.
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { PLUGIN_BINARY, PLUGIN_NAME } from '../../src/api/environment.js';

const template = await readFile(new URL('../../.krew.yaml', import.meta.url), 'utf8');
const manifest = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as {
  bin: Record<string, string>;
};

/** krew-release-bot's rendering: the tag, and each addURIAndSha as `uri:` and `sha256:` lines. */
function render(tag: string): string {
  return template
    .replace(
      /\{\{ addURIAndSha "([^"]+)" \.TagName \}\}/g,
      (_match, uri: string) => `uri: ${uri.replace('{{ .TagName }}', tag)}\n    sha256: ${'3f'.repeat(32)}`,
    )
    .replace(/\{\{ \.TagName \}\}/g, tag);
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
