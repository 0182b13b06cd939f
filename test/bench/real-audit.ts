// What one run costs the real API server and the machine, counted: the requests the API
// server's audit log records for the bench's user (kguard-admin: every tool runs as it, the
// controllers, the scheduler and kwok as users of their own), by verb, and the kubectl processes
// the run started (a kubectl first on PATH that notes each start and runs the real one).
import { chmod, mkdtemp, open, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';

/** The user every tool in the bench runs as (test/control-plane/pki.ts). */
const BENCH_USER = 'kguard-admin';

export interface Cost {
  /** kubectl processes started (a proxy included); Helm starts none. */
  processes: number;
  requests: number;
  /** Requests by kind: get, list, watch, dry-run writes, writes. */
  byVerb: Record<string, number>;
  exitCode: number;
}

interface AuditEvent {
  verb: string;
  requestURI: string;
  user?: { username?: string };
  stage: string;
}

/** Reads the audit lines appended since `from` (bytes). */
async function auditSince(auditLog: string, from: number): Promise<AuditEvent[]> {
  const size = (await stat(auditLog)).size;
  if (size < from)
    throw new Error(`${auditLog} is shorter (${size} bytes) than when the count began (${from}): it was rotated`);
  const file = await open(auditLog, 'r');
  try {
    const buffer = Buffer.alloc(size - from);
    await file.read(buffer, 0, buffer.length, from);
    return buffer
      .toString('utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as AuditEvent);
  } finally {
    await file.close();
  }
}

function kindOf(event: AuditEvent): string {
  if (/[?&]dryRun=All/.test(event.requestURI)) return `dry-run ${event.verb}`;
  return event.verb;
}

/** Runs `command args` once, with a counting kubectl first on PATH, and counts what it cost. */
export async function costOf(
  auditLog: string,
  command: string,
  args: readonly string[],
  env: Record<string, string | undefined>,
): Promise<Cost> {
  const real = (await execa('sh', ['-c', 'command -v kubectl'])).stdout.trim();
  const dir = await mkdtemp(join(tmpdir(), 'kguard-bench-count-'));
  try {
    const tally = join(dir, 'starts');
    await writeFile(tally, '');
    await writeFile(join(dir, 'kubectl'), `#!/bin/sh\necho "$*" >> '${tally}'\nexec '${real}' "$@"\n`);
    await chmod(join(dir, 'kubectl'), 0o755);
    const from = (await stat(auditLog)).size;
    const run = await execa(command, args, { env: { ...env, PATH: `${dir}:${env.PATH ?? ''}` }, reject: false });
    // A watch is recorded when it ends, which the API server sees shortly after the client's exit.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const events = (await auditSince(auditLog, from)).filter((event) => event.user?.username === BENCH_USER);
    const byVerb: Record<string, number> = {};
    for (const event of events) byVerb[kindOf(event)] = (byVerb[kindOf(event)] ?? 0) + 1;
    return {
      processes: (await readFile(tally, 'utf8')).split('\n').filter(Boolean).length,
      requests: events.length,
      byVerb,
      exitCode: run.exitCode ?? -1,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** "48 requests (get 20, patch 1, …), 3 kubectl processes". */
export function describeCost(cost: Cost): string {
  const verbs = Object.entries(cost.byVerb)
    .sort(([, a], [, b]) => b - a)
    .map(([verb, count]) => `${verb} ${count}`)
    .join(', ');
  return `${cost.requests} requests (${verbs}), ${cost.processes} kubectl processes`;
}
