// Before `npm run test:binary`: the linux-x64 executable (npm run build:binaries writes it) copied
// alone into an empty folder, named by KGUARD_BIN for the end-to-end harness (test/e2e/harness.ts).
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const built = fileURLToPath(new URL('../../dist/binaries/kguard-linux-x64', import.meta.url));

export default async function setup(): Promise<() => Promise<void>> {
  const folder = await mkdtemp(path.join(tmpdir(), 'kguard-binary-'));
  const executable = path.join(folder, 'kguard');
  await copyFile(built, executable);
  process.env.KGUARD_BIN = executable;
  return () => rm(folder, { recursive: true, force: true });
}
