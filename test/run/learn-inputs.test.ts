// Every manifest is learnt for its Secret values after the size check and before kubectl reads
// it: stdin's private copy as the user's files (src/api/apply.ts wires learnFiles; reading.ts
// calls it). An input the size check refuses is never learnt: learning parses the documents
// that may hold a Secret, which for a 50 MB input cost many times its size (#45).
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { runApply } from '../../src/run/apply/apply.js';
import { fakeCluster } from './fake-kubectl.js';
import { configAfter, configBefore, depsFor, options } from './pipeline-fixtures.js';

const secret = (value: string) =>
  `apiVersion: v1\nkind: Secret\nmetadata:\n  name: creds\n  namespace: shop\nstringData:\n  password: ${value}\n`;

function runWithStdin(stdin: string) {
  const cluster = fakeCluster([configBefore], [configAfter]);
  const learnt: Array<{ files: string[]; texts: string[]; kubectlCallsBefore: number }> = [];
  const deps = depsFor(cluster);
  deps.inputs = {
    ...deps.inputs,
    readStdin: async () => Buffer.from(stdin),
    learnFiles: async (inputs) => {
      const kubectlCallsBefore = cluster.calls.length;
      const texts = await Promise.all(inputs.filenames.map((file) => readFile(file, 'utf8')));
      learnt.push({ files: [...inputs.filenames], texts, kubectlCallsBefore });
    },
  };
  return { cluster, learnt, run: runApply(options, deps) };
}

describe('the Secret values of stdin', () => {
  it('are learnt from its private copy, the bytes kubectl reads, before any kubectl call', async () => {
    const { learnt, run } = runWithStdin(secret('hunter2'));
    await run;
    expect(learnt).toHaveLength(1);
    expect(learnt[0]?.files).toEqual([expect.stringMatching(/\.yaml$/)]);
    expect(learnt[0]?.files[0]).not.toBe('-');
    expect(learnt[0]?.texts).toEqual([secret('hunter2')]);
    expect(learnt[0]?.kubectlCallsBefore).toBe(0);
  });

  it('are never read when the size check refuses the input', async () => {
    const { cluster, learnt, run } = runWithStdin(secret('x'.repeat(1_100_000)));
    await expect(run).rejects.toThrow(/would refuse an object of this apply for its size[\s\S]*secret\/creds in stdin/);
    expect(learnt).toEqual([]);
    expect(cluster.calls).toEqual([]);
  });
});
