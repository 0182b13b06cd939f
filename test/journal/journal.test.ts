// The run journal's size limit: found before the apply, it stops the run with what to do instead.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ExitCode, JournalTooLargeError } from '../../src/errors.js';
import type { Kubectl } from '../../src/kubectl/types.js';
import { journalSecret, type Journal } from '../../src/journal/journal.js';
import { RunJournal } from '../../src/journal/store.js';
import type { KubeObject } from '../../src/objects/model.js';

/** A ConfigMap whose data does not compress: random bytes, base64-encoded. */
function bigConfigMap(name: string, bytes: number): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'shop' }, data: { blob: randomBytes(bytes).toString('base64') } } as KubeObject;
}

function journalOf(objects: KubeObject[]): Journal {
  return {
    runId: 'kguard-test-run',
    startedAt: '2024-05-01T10:00:00.000Z',
    expiresAt: '2024-05-02T10:00:00.000Z',
    namespace: 'shop',
    state: 'applying',
    command: 'kguard apply -f big/',
    objects: objects.map((object) => ({ ref: { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'shop', name: object.metadata.name }, before: object })),
  };
}

/** Records the writes; every one succeeds. */
function recordingKubectl(): { kubectl: Pick<Kubectl, 'create' | 'replace' | 'deleteExact' | 'getObject' | 'listLabelled'>; writes: string[] } {
  const writes: string[] = [];
  const written = async (object: KubeObject) => {
    writes.push(object.metadata.name);
    return { ok: true as const, object: { ...object, metadata: { ...object.metadata, uid: 'u-1', resourceVersion: '1' } } };
  };
  return {
    writes,
    kubectl: {
      create: written,
      replace: written,
      deleteExact: async () => ({ ok: true as const }),
      getObject: async () => undefined,
      listLabelled: async () => [],
    } as unknown as Pick<Kubectl, 'create' | 'replace' | 'deleteExact' | 'getObject' | 'listLabelled'>,
  };
}

describe('a run journal too big for a Secret', () => {
  it('is refused with exit 2, naming its size, the limit and what to do instead', () => {
    const journal = journalOf([bigConfigMap('one', 600 * 1024), bigConfigMap('two', 600 * 1024)]);
    const refusal = (() => {
      try {
        journalSecret(journal);
      } catch (error) {
        return error;
      }
      throw new Error('a journal of 1.2 MB of random data was accepted');
    })();
    expect(refusal).toBeInstanceOf(JournalTooLargeError);
    const error = refusal as JournalTooLargeError;
    expect(error.exitCode).toBe(ExitCode.ClusterError);
    expect(error.bytes).toBeGreaterThan(1024 * 1024);
    expect(error.message).toMatch(
      /^kguard cannot journal this apply in namespace shop: the pre-apply copies of its 2 object\(s\) make a run journal of \d{4} KiB \(compressed\), more than the 1024 KiB /,
    );
    expect(error.message).toContain('Next: run with --no-journal');
    expect(error.message).toContain('or split the apply into smaller ones; nothing was applied.');
  });

  it('stops the start of a run before anything is written', async () => {
    const { kubectl, writes } = recordingKubectl();
    const journal = journalOf([bigConfigMap('one', 600 * 1024), bigConfigMap('two', 600 * 1024)]);
    await expect(RunJournal.start(kubectl, journal, 10_000)).rejects.toBeInstanceOf(JournalTooLargeError);
    expect(writes).toEqual([]);
  });

  it('after the apply, fails the update with a message that does not say nothing was applied', async () => {
    const { kubectl, writes } = recordingKubectl();
    const started = await RunJournal.start(kubectl, journalOf([bigConfigMap('one', 100)]), 10_000);
    const update = started.update({ state: 'applied', objects: journalOf([bigConfigMap('one', 600 * 1024), bigConfigMap('two', 600 * 1024)]).objects });
    await expect(update).rejects.toThrow(/^kguard could not update its run journal: it would be \d{4} KiB, more than the 1024 KiB it may be$/);
    expect(writes).toEqual(['kguard-test-run-journal']);
  });
});
