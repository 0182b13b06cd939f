// A kubectl for KGUARD_KUBECTL that runs the real one and writes one line per process when it
// ends: when it started, when it ended, and whether it was a watch. From those lines, the most
// kubectl processes that ran at once, seen from outside kguard (its own count is the pool's).
import { execFileSync } from 'node:child_process';
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface KubectlProcessRecord {
  startedAt: number;
  endedAt: number;
  /** Long-lived: a watch stream (`get --raw '…watch=1…'`) or the run's `kubectl proxy` (api-channel.ts); outside kguard's pool. */
  watch: boolean;
}

export interface RecordingKubectl {
  /** The script to put in KGUARD_KUBECTL. */
  binary: string;
  /** Every kubectl process that ended since the script was written (or since `clear`). */
  processes(): Promise<KubectlProcessRecord[]>;
  clear(): Promise<void>;
}

export async function recordingKubectl(dir: string): Promise<RecordingKubectl> {
  const real = execFileSync('sh', ['-c', 'command -v kubectl'], { encoding: 'utf8' }).trim();
  const log = join(dir, 'kubectl-processes.log');
  const binary = join(dir, 'kubectl-recorded');
  // bash's EPOCHREALTIME costs no process; one short append per line stays whole (O_APPEND).
  // A start line first, an end line last: a watch is stopped with SIGTERM to its group, which
  // the trap still records (after kubectl exits); a process killed outright keeps its start only.
  await writeFile(
    binary,
    `#!/bin/bash
case "$*" in *watch=1*|*" proxy --unix-socket="*) kind=watch ;; *) kind=call ;; esac
printf 'start %s %s %s\\n' "$$" "$EPOCHREALTIME" "$kind" >> ${JSON.stringify(log)}
ended() { printf 'end %s %s\\n' "$$" "$EPOCHREALTIME" >> ${JSON.stringify(log)}; }
trap 'ended; exit 143' TERM
trap 'ended; exit 130' INT
${JSON.stringify(real)} "$@"
code=$?
ended
exit $code
`,
  );
  await chmod(binary, 0o755);
  await writeFile(log, '');
  return {
    binary,
    async processes() {
      const lines = (await readFile(log, 'utf8')).split('\n').filter((line) => line.trim() !== '');
      const time = (text = '') => Number(text.replace(',', '.'));
      const last = Math.max(0, ...lines.map((line) => time(line.split(' ')[2])));
      const ends = new Map(
        lines.filter((line) => line.startsWith('end ')).map((line) => [line.split(' ')[1], time(line.split(' ')[2])]),
      );
      return lines
        .filter((line) => line.startsWith('start '))
        .map((line) => {
          const [, pid = '', started, kind] = line.split(' ');
          // Never seen to end (killed outright): running until the last thing recorded.
          return { startedAt: time(started), endedAt: ends.get(pid) ?? last, watch: kind === 'watch' };
        });
    },
    clear: () => writeFile(log, ''),
  };
}

/** The most processes that ran at once (a process that ends as another starts counts once). */
export function peakConcurrency(records: readonly KubectlProcessRecord[]): number {
  const moments = records.flatMap((record) => [
    { at: record.startedAt, step: 1 },
    { at: record.endedAt, step: -1 },
  ]);
  // Ends before starts at the same instant.
  moments.sort((left, right) => left.at - right.at || left.step - right.step);
  let running = 0;
  let peak = 0;
  for (const moment of moments) {
    running += moment.step;
    peak = Math.max(peak, running);
  }
  return peak;
}
