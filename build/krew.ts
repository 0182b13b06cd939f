// The krew release: per platform krew installs on, a tar.gz of the release executable named as the
// kubectl plugin (kubectl-rollout_guard), its completion helper and LICENSE; their sums added to
// SHA256SUMS; and .krew.yaml rendered with the release tag and those sums, as krew-release-bot
// would render the template (`{{ .TagName }}`, `{{ addURIAndSha "URL" .TagName }}`), so the
// manifest a release attaches is checked here, not only by the bot.
//   node dist/build/cli.js krew TAG   (after npm run build:binaries; the release workflow runs it)
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { BINARIES_DIR, checksums } from './binaries.js';
import { ROOT } from './bundle.js';

export const KREW_PLATFORMS = [
  { os: 'linux', arch: 'amd64', asset: 'kguard-linux-x64' },
  { os: 'linux', arch: 'arm64', asset: 'kguard-linux-arm64' },
  { os: 'darwin', arch: 'amd64', asset: 'kguard-darwin-x64' },
  { os: 'darwin', arch: 'arm64', asset: 'kguard-darwin-arm64' },
] as const;

export const PLUGIN_BINARY = 'kubectl-rollout_guard';
export const KREW_MANIFEST = 'rollout-guard.yaml';

export const krewArchive = (os: string, arch: string): string => `${PLUGIN_BINARY}-${os}-${arch}.tar.gz`;

/** `sha256sum` lines: file name → sum. */
export function parseChecksums(text: string): Map<string, string> {
  const sums = new Map<string, string>();
  for (const line of text.split('\n')) {
    const match = /^([0-9a-f]{64}) [ *](.+)$/.exec(line.trim());
    if (match) sums.set(match[2]!, match[1]!);
  }
  return sums;
}

/** The template with the tag and each asset's URL and sum; an asset without a sum is an error. */
export function renderKrew(template: string, tag: string, sums: ReadonlyMap<string, string>): string {
  if (!/^v\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/.test(tag)) throw new Error(`${tag}: a release tag is v<semver>`);
  return template
    .replace(/\{\{ addURIAndSha "([^"]+)" \.TagName \}\}/g, (_match, uri: string) => {
      const url = uri.replaceAll('{{ .TagName }}', tag);
      const sum = sums.get(path.posix.basename(url));
      if (!sum) throw new Error(`no sha256 for ${path.posix.basename(url)} in SHA256SUMS`);
      return `uri: ${url}\n    sha256: ${sum}`;
    })
    .replaceAll('{{ .TagName }}', tag);
}

/** The completion helper krew ships beside the plugin: kubectl runs it, it asks the plugin. */
const COMPLETION_HELPER =
  '#!/bin/sh\n# kubectl rollout-guard <TAB>: the plugin answers with its __complete command.\nexec kubectl-rollout_guard __complete "$@"\n';

/** Packs each platform's archive into `directory` (where the executables are); returns their names. */
export function packKrew(directory: string): string[] {
  const archives: string[] = [];
  for (const { os, arch, asset } of KREW_PLATFORMS) {
    const staging = mkdtempSync(path.join(tmpdir(), 'kguard-krew-'));
    try {
      copyFileSync(path.join(directory, asset), path.join(staging, PLUGIN_BINARY));
      chmodSync(path.join(staging, PLUGIN_BINARY), 0o755);
      writeFileSync(path.join(staging, 'kubectl_complete-rollout_guard'), COMPLETION_HELPER, { mode: 0o755 });
      copyFileSync(path.join(ROOT, 'LICENSE'), path.join(staging, 'LICENSE'));
      const archive = krewArchive(os, arch);
      // The same bytes for the same inputs: fixed owner, time and order.
      execFileSync('tar', [
        '--owner=0',
        '--group=0',
        '--numeric-owner',
        '--mtime=1970-01-01',
        '--sort=name',
        '-czf',
        path.join(directory, archive),
        '-C',
        staging,
        PLUGIN_BINARY,
        'kubectl_complete-rollout_guard',
        'LICENSE',
      ]);
      archives.push(archive);
    } finally {
      rmSync(staging, { recursive: true, force: true });
    }
  }
  return archives;
}

/** The archives, SHA256SUMS over every asset, and the rendered manifest, in dist/binaries/. */
export function releaseKrew(tag: string): string {
  const directory = path.join(ROOT, BINARIES_DIR);
  const archives = packKrew(directory);
  const executables = KREW_PLATFORMS.map(({ asset }) => asset);
  const others = parseChecksums(readFileSync(path.join(directory, 'SHA256SUMS'), 'utf8'));
  const assets = [...new Set([...others.keys(), ...executables, ...archives])];
  writeFileSync(path.join(directory, 'SHA256SUMS'), checksums(directory, assets));
  const sums = parseChecksums(readFileSync(path.join(directory, 'SHA256SUMS'), 'utf8'));
  const manifest = renderKrew(readFileSync(path.join(ROOT, '.krew.yaml'), 'utf8'), tag, sums);
  writeFileSync(path.join(directory, KREW_MANIFEST), manifest);
  return path.join(BINARIES_DIR, KREW_MANIFEST);
}
