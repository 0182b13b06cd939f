// kguard's heap policy, set by the CLI (a library caller keeps its own). kguard waits on kubectl
// and the cluster far more than it computes. A big apply holds kubectl's answers of several MiB,
// and V8's default policy lets the heap grow with them: for such an apply V8 is asked to keep its
// heap small (--optimize-for-size: collect sooner, grow less; at 1,000 objects the peak resident
// memory goes from about 216 to 145 MiB, for about 6 % more CPU time) and its young generation at
// its starting size (--semi-space-growth-factor=1: the watch's objects, kept, survive their first
// collections, and V8 grew the young generation to 32 MiB for them; 1,000 objects on the real
// control plane, Node 20: 155 → 132 MiB at the same CPU; Node 22 and 24 keep it at 2 MiB with it
// too). A small apply keeps V8's default: there the flags save nothing and cost the start about
// 40 ms of CPU (more collections while the modules load, before the first write).
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import v8 from 'node:v8';
import type { ManifestInput } from '../model/options.js';

/**
 * Manifests above this many bytes are a big apply: about 150 small objects (the bench's 300
 * objects are 63.5 KB, its 1,000 are 214 KB), or some 25 of an application's usual size. A
 * release of a few services (10 to 30 KB) stays under it. It was 64 KiB, which the 300 objects
 * passed under: their run peaked at 125–132 MiB with V8's default and 104–106 MiB with the flag
 * (the simulator, five runs each); the flag's 40 ms at the start are nothing beside the tens of
 * seconds such an apply takes on a real API server (docs/performance.md).
 */
export const SMALL_HEAP_ABOVE_BYTES = 32 * 1024;

/** What a big apply asks of V8, at run time (above). */
export const SMALL_HEAP_FLAGS = ['--optimize-for-size', '--semi-space-growth-factor=1'];

/** The files kubectl reads from a directory (kubectl's FileVisitor extensions). */
const MANIFEST_EXTENSIONS = new Set(['.json', '.yaml', '.yml']);

/**
 * How many bytes the manifests hold, or undefined when that is not known before they are read (a
 * URL, stdin, a kustomization, a path that cannot be read: kubectl will say).
 */
export async function manifestBytes(manifests: ManifestInput): Promise<number | undefined> {
  if (manifests.kustomize !== undefined) return undefined;
  let total = 0;
  for (const filename of manifests.filenames) {
    if (filename === '-' || /^https?:\/\//i.test(filename)) return undefined;
    const bytes = await bytesAt(filename, manifests.recursive).catch(() => undefined);
    if (bytes === undefined) return undefined;
    total += bytes;
  }
  return total;
}

async function bytesAt(at: string, recursive: boolean, top = true): Promise<number> {
  const info = await stat(at);
  if (!info.isDirectory()) return top || MANIFEST_EXTENSIONS.has(path.extname(at)) ? info.size : 0;
  if (!top && !recursive) return 0;
  let total = 0;
  for (const entry of await readdir(at)) total += await bytesAt(path.join(at, entry), recursive, false);
  return total;
}

/** Whether V8 should keep the heap small for these manifests: big ones, or ones of a size not known yet. */
export function wantsSmallHeap(bytes: number | undefined): boolean {
  return bytes === undefined || bytes > SMALL_HEAP_ABOVE_BYTES;
}

/** Sets the heap policy for an apply of these manifests (before they are read). */
export async function setHeapPolicy(manifests: ManifestInput): Promise<void> {
  if (!wantsSmallHeap(await manifestBytes(manifests))) return;
  try {
    for (const flag of SMALL_HEAP_FLAGS) v8.setFlagsFromString(flag);
  } catch {
    // A runtime without V8's flags (the release executables' Bun) runs the same, with its own heap policy.
  }
}
