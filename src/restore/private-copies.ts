// Pre-apply copies a person needs to finish a restore by hand: written to a private directory
// (mode 0700, files 0600) only when a printed command names them, and removed with the run.
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { KubeObject, ObjectRef } from '../objects/model.js';

/** A private directory for pre-apply copies a person needs; created on first use. */
export interface PrivateCopies {
  (ref: ObjectRef, object: KubeObject): Promise<string>;
  /** Removes the copies (the run needs no person: no printed command names them). */
  remove(): Promise<void>;
}

/** Where a run's copies go: `kguard-restore-<run>-XXXXXX` in the temp directory, mode 0700. */
const copiesPrefix = (runId: string | undefined) =>
  path.join(tmpdir(), runId ? `kguard-restore-${runId}-` : 'kguard-restore-');

export function privateCopies(runId?: string): PrivateCopies {
  let directory: Promise<string> | undefined;
  const keep = async (ref: ObjectRef, object: KubeObject) => {
    directory ??= mkdtemp(copiesPrefix(runId));
    const file = path.join(
      await directory,
      `${[ref.kind, ref.namespace, ref.name].filter(Boolean).join('-').toLowerCase()}.json`,
    );
    await writeFile(file, `${JSON.stringify(object, null, 2)}\n`, { mode: 0o600 });
    return file;
  };
  return Object.assign(keep, {
    async remove() {
      if (directory) await rm(await directory, { recursive: true, force: true }).catch(() => undefined);
    },
  });
}

/** A run finished later (`kguard rollback`, `forget`): the copies its apply left on this machine go too. */
export async function removeCopiesOf(runId: string): Promise<void> {
  const prefix = path.basename(copiesPrefix(runId));
  const entries = await readdir(tmpdir()).catch(() => [] as string[]);
  await Promise.all(
    entries
      .filter((name) => name.startsWith(prefix))
      .map((name) => rm(path.join(tmpdir(), name), { recursive: true, force: true }).catch(() => undefined)),
  );
}
