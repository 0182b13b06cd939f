import type { KubeObject } from '../../objects/model.js';
import { itemsOf, withFieldManager, writeFailure } from '../output/parse.js';
import type { WriteResult, ConditionalWrites } from '../types.js';
import type { KubectlRunner } from './runner.js';

export function conditionalWrites(runner: KubectlRunner): ConditionalWrites {
  return {
    /**
     * PUT the whole object to its REST path (`kubectl replace --raw PATH -f -`). The raw form
     * sends the body untouched: plain `kubectl replace` rewrites an existing
     * last-applied-configuration annotation from the object it sends (kubectl replace.go →
     * util.CreateOrUpdateAnnotation), which would corrupt the copy being restored.
     * metadata.resourceVersion makes the write conditional (409 Conflict if the object moved);
     * non-empty managedFields in the body replace the stored ones (apimachinery fieldmanager.go).
     */
    async replace(object: KubeObject, path: string, deadlineMs: number): Promise<WriteResult> {
      return rawWrite(runner, 'replace', withFieldManager(path), object, deadlineMs);
    },

    /** POST a new object to its collection path (`kubectl create --raw PATH -f -`), body untouched. */
    async create(object: KubeObject, collectionPath: string, deadlineMs: number): Promise<WriteResult> {
      return rawWrite(runner, 'create', withFieldManager(collectionPath), object, deadlineMs);
    },

    /**
     * DELETE with preconditions (`kubectl delete --raw PATH -f -` sends the file as the request
     * body: kubectl delete.go → rawhttp.RawDelete). A uid precondition deletes exactly the object
     * this run created, never a namesake created since.
     */
    async deleteExact(
      path: string,
      preconditions: { uid: string; resourceVersion?: string },
      deadlineMs: number,
    ): Promise<WriteResult> {
      const body = { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Background', preconditions };
      // Safe to repeat: the uid precondition; a delete that did land answers the retry with 404.
      const result = await runner.retrying(() =>
        runner.run(['delete', '--raw', path, '-f', '-'], { deadlineMs, input: JSON.stringify(body) }),
      );
      if (result.exitCode === 0) return { ok: true };
      return writeFailure(result, deadlineMs);
    },
  };
}

async function rawWrite(
  runner: KubectlRunner,
  verb: 'replace' | 'create',
  path: string,
  object: KubeObject,
  deadlineMs: number,
): Promise<WriteResult> {
  // Safe to repeat: the body carries metadata.resourceVersion (a PUT) or the object must not
  // exist yet (a POST), so a write that did land answers the retry with 409, never twice.
  const result = await runner.retrying(() =>
    runner.run([verb, '--raw', path, '-f', '-'], { deadlineMs, input: JSON.stringify(object) }),
  );
  if (result.exitCode === 0) return { ok: true, object: runner.observed(itemsOf<KubeObject>(result.stdout))[0] };
  return writeFailure(result, deadlineMs);
}
