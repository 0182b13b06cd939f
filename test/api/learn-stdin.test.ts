// The Secret values of `-f -` are learnt for redaction after the size check has let the input
// through and before any kubectl reads it (src/api/apply.ts): an input refused for its size is
// never parsed for them (learning parses the documents that may hold a Secret: a 50 MB input read
// that way cost many times its size, #45). No cluster: kubectl is a binary that does not exist,
// so the run ends at its first kubectl call, after the learning.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guardedApply } from '../../src/api/apply.js';
import { resolveApplyOptions } from '../../src/api/options.js';
import { Redactor } from '../../src/report/safety/redact.js';
import { RecordingReporter } from '../fakes.js';

const PASSWORD = 'Sekr3t-from-stdin';

const secret = (bulk: number) =>
  `apiVersion: v1\nkind: Secret\nmetadata:\n  name: creds\n  namespace: shop\nstringData:\n  password: ${PASSWORD}\n  bulk: ${'x'.repeat(bulk)}\n`;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kguard-learn-'));
  await writeFile(join(dir, 'kubeconfig'), 'apiVersion: v1\nkind: Config\n');
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

async function applyStdin(text: string) {
  const redactor = new Redactor();
  const run = guardedApply(
    resolveApplyOptions({ filenames: ['-'], kubectlArgs: [`--kubeconfig=${join(dir, 'kubeconfig')}`] }),
    {
      redactor,
      reporter: new RecordingReporter(),
      readStdin: async () => Buffer.from(text),
      kubectlBinary: join(dir, 'no-kubectl'),
      env: {},
    },
  );
  const outcome = await run.then(
    (result) => ({ exitCode: result.exitCode, error: undefined }),
    (error: unknown) => ({ exitCode: undefined, error: error as Error }),
  );
  return { ...outcome, learnt: redactor.redact(PASSWORD) !== PASSWORD };
}

describe('the Secret values of stdin', () => {
  it('are learnt before the first kubectl call', async () => {
    const run = await applyStdin(secret(10));
    expect(run.error?.message).toMatch(/no-kubectl could not be started .*nothing was applied/);
    expect(run.learnt).toBe(true);
  });

  it('are never read from an input the size check refuses', async () => {
    const run = await applyStdin(secret(1_100_000));
    expect(run.error?.message).toMatch(/would refuse an object of this apply for its size[\s\S]*secret\/creds/);
    expect(run.learnt).toBe(false);
  });
});
