// kguard's version, from package.json: read next to the compiled code (dist/src/version.js is
// two folders below the package root), or set by the bundler for the single-file builds (the
// GitHub Action and the single executable), where no package.json travels along.
import { readFileSync } from 'node:fs';

declare const KGUARD_BUNDLED_VERSION: string | undefined;
/** The release executable's asset name (`kguard-linux-x64`), set by its build (build/binaries.ts). */
declare const KGUARD_EXECUTABLE: string | undefined;

export function kguardVersion(): string {
  if (typeof KGUARD_BUNDLED_VERSION === 'string') return KGUARD_BUNDLED_VERSION;
  try {
    const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version?: unknown;
    };
    return typeof manifest.version === 'string' ? manifest.version : 'unknown';
  } catch {
    return 'unknown';
  }
}

/**
 * What runs: `executable kguard-linux-x64, bun 1.4.5` (a release executable, which `npm install`
 * brings where there is one for the platform), or `JavaScript, node 24.11.1` (the bundle or the
 * compiled sources, on the Node that started them).
 */
export function runtimeVersion(
  versions: NodeJS.ProcessVersions & { bun?: string } = process.versions,
  executable: string | undefined = typeof KGUARD_EXECUTABLE === 'string' ? KGUARD_EXECUTABLE : undefined,
): string {
  if (executable) return `executable ${executable}, ${versions.bun ? `bun ${versions.bun}` : `node ${versions.node}`}`;
  return versions.bun ? `JavaScript, bun ${versions.bun}` : `JavaScript, node ${versions.node}`;
}
