// The control plane's watchdog, a process of its own: the parent writes the PID of each process it
// starts to this one's stdin. When that pipe closes (the parent exited, or was killed with -9) or
// the deadline passes, it stops every PID it was given: SIGTERM, then SIGKILL after a grace.
// Then it removes what real nodes made on the host (host-state.ts: cgroup trees, CNI bridges).
// So no etcd or kube-apiserver outlives the test run or the `npm run cluster:real` that started it.
// Usage: node dist/test/control-plane/watchdog.js <deadline ms> [dir to remove after] (spawned by processes.ts).

import { rmSync } from 'node:fs';
import { removeHostState, type HostState } from './host-state.js';

const GRACE_MS = 5_000;

const deadlineMs = Number(process.argv[2] ?? '0');
// The cluster's temp dir (certificates, keys, etcd's data): removed once its processes are gone.
const leftovers = process.argv[3];
const pids = new Set<number>();
// Real nodes' cgroup trees and bridges (host-state.ts), removed after the PIDs are stopped.
const hostState: HostState[] = [];
let buffered = '';
let stopping = false;

process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk: string) => {
  buffered += chunk;
  const lines = buffered.split('\n');
  buffered = lines.pop() ?? '';
  for (const line of lines) {
    const [verb, pid] = line.trim().split(' ');
    if (verb === 'host') hostState.push(JSON.parse(line.trim().slice('host '.length)) as HostState);
    if (verb === 'add' && Number(pid) > 0) pids.add(Number(pid));
    if (verb === 'remove') pids.delete(Number(pid));
  }
});
process.stdin.on('end', () => void stopAll('the parent went away'));
process.stdin.on('error', () => void stopAll('the parent went away'));
// The terminal's Ctrl-C goes to the parent, which stops its processes itself; this one waits for the pipe.
process.on('SIGINT', () => {});
if (deadlineMs > 0)
  setTimeout(() => void stopAll(`the deadline of ${Math.round(deadlineMs / 1000)} s passed`), deadlineMs);

async function stopAll(why: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  const alive = [...pids].filter(isAlive);
  if (alive.length > 0) console.error(`control-plane watchdog: ${why}; stopping PIDs ${alive.join(', ')}`);
  for (const pid of alive) signal(pid, 'SIGTERM');
  const until = Date.now() + GRACE_MS;
  while (Date.now() < until && alive.some(isAlive)) await new Promise((resolve) => setTimeout(resolve, 100));
  for (const pid of alive.filter(isAlive)) signal(pid, 'SIGKILL');
  // Already gone after a clean stop; after a kill -9 of the parent, the nodes' containers and shims.
  for (const state of hostState.reverse()) await removeHostState(state);
  if (alive.length > 0 && leftovers) rmSync(leftovers, { recursive: true, force: true });
  process.exit(0);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // Gone already.
  }
}
