// Whether a process still runs, read from /proc: the tests that check a deadline ended a whole
// process group (kubectl/command.test.ts, e2e/verify.test.ts).
import { readFileSync } from 'node:fs';

/** Whether a process still runs (a zombie waiting for its reaper does not), after it was given up to 2 s to go. */
export async function stillRunning(pid: number): Promise<boolean> {
  const deadline = Date.now() + 2000;
  for (;;) {
    let state: string | undefined;
    try {
      state = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0];
    } catch {
      return false;
    }
    if (state === 'Z') return false;
    if (Date.now() > deadline) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
