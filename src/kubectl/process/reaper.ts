// kubectl children die with kguard, however kguard dies.
//
// Each child runs in a process group of its own (exec.ts: deadlines kill the whole tree, and a
// terminal's Ctrl-C reaches kguard alone). The price: a kguard killed with SIGKILL (kill -9, the
// OOM killer, `timeout -s KILL`, a CI runner killing the job's process group) runs no handler,
// and its `kubectl apply` would live on and land its PATCH after a `kguard rollback` had already
// put the objects back. Node has no parent-death signal (Linux prctl PR_SET_PDEATHSIG is not
// reachable without a native module), so a reaper stands in for it: one small `sh`, in a group
// of its own too, reading kguard's list of running groups on a pipe. The pipe closes when kguard
// dies, whatever kills it; the reaper then kills every group still on the list, and exits. On a
// clean exit the list is empty and the reaper just exits.
import { spawn, type ChildProcess } from 'node:child_process';

/**
 * "+PGID" adds a group, "-PGID" drops it (a finished child: its id may be reused); at end of
 * input every group left is killed. POSIX sh only (dash, busybox, bash).
 */
export const REAPER_SCRIPT = [
  "groups=' '",
  'while IFS= read -r line; do',
  '  case "$line" in',
  '    +*) groups="$groups${line#+} " ;;',
  '    -*) id=${line#-}',
  '        case "$groups" in *" $id "*) groups="${groups%% $id *} ${groups#* $id }" ;; esac ;;',
  '  esac',
  'done',
  'for id in $groups; do kill -s KILL -- "-$id" 2>/dev/null; done',
].join('\n');

let reaper: ChildProcess | undefined;
let unavailable = process.platform === 'win32';

/** Puts a child's process group on the reaper's list (starting the reaper at the first child). */
export function reapOnDeath(pgid: number): void {
  const stdin = reaperInput();
  stdin?.write(`+${pgid}\n`);
}

/** The child ended: its group leaves the list. */
export function forgetGroup(pgid: number): void {
  if (reaper?.stdin?.writable) reaper.stdin.write(`-${pgid}\n`);
}

function reaperInput(): NodeJS.WritableStream | undefined {
  if (unavailable) return undefined;
  if (reaper?.stdin?.writable) return reaper.stdin;
  try {
    const started = spawn('/bin/sh', ['-c', REAPER_SCRIPT], { detached: true, stdio: ['pipe', 'ignore', 'ignore'] });
    started.on('error', () => {
      // No /bin/sh: kguard still runs; only the kill -9 guarantee is lost.
      unavailable = true;
    });
    // EPIPE after the reaper is gone must never crash kguard.
    started.stdin?.on('error', () => undefined);
    // Neither the reaper nor its pipe keeps kguard alive.
    started.unref();
    (started.stdin as unknown as { unref?: () => void } | null)?.unref?.();
    reaper = started;
    return started.stdin ?? undefined;
  } catch {
    unavailable = true;
    return undefined;
  }
}
