// kguard's version, from package.json: read next to the compiled code (dist/src/version.js is
// two folders below the package root), or set by the bundler for the single-file builds (the
// GitHub Action and the single executable), where no package.json travels along.
import { readFileSync } from 'node:fs';

declare const KGUARD_BUNDLED_VERSION: string | undefined;

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

/** The JavaScript runtime kguard runs on: `node 24.11.1`, or `bun 1.4.5` inside a release executable. */
export function runtimeVersion(versions: NodeJS.ProcessVersions & { bun?: string } = process.versions): string {
  return versions.bun ? `bun ${versions.bun}` : `node ${versions.node}`;
}
