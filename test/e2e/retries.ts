import { expect } from 'vitest';

/**
 * Retries of one killed run, started at once, each end as its own apply deserves: all exit 0, none
 * takes another's recovery writes for someone else's change ("need a person"), and exactly one
 * restores the dead run from its journal. Used on the simulator (misbehave.test) and on the real
 * control plane (real/retries.test). Returns every retry's output, for the checks that follow.
 */
export function expectOneRecovery(retries: ReadonlyArray<{ exitCode: number; output: string }>, round: number): string {
  const story = retries.map((retry, index) => `retry ${index + 1} of round ${round + 1}:\n${retry.output}`).join('\n');
  expect(
    retries.map((retry) => retry.exitCode),
    story,
  ).toEqual(retries.map(() => 0));
  expect(story).not.toContain('need a person');
  expect(story.match(/finished first: \d+ object\(s\) restored from its journal/g) ?? [], story).toHaveLength(1);
  return story;
}
