// kubectl's apply family over the same inputs: kustomize, the dry runs, diff and apply.
import { InputError } from '../../errors.js';
import type { KubeObject, ObjectRef } from '../../objects/model.js';
import { parseApplyOutput } from '../output/apply-output.js';
import type { AppliedObject } from '../../model/result.js';
import { diagnoseKubectlFailure } from '../output/diagnose.js';
import { diffsByObject } from '../output/diff-output.js';
import { applyArgv, applyCommand, DIFF_FLAGS, itemsOfValue, jsonDocuments } from '../output/parse.js';
import type { ExecResult } from '../process/exec.js';
import type { ApplyRequest, DryRunResult, ApplyFamily, HeldApply } from '../types.js';
import type { KubectlRunner } from './runner.js';

export function applyFamily(runner: KubectlRunner): ApplyFamily {
  return {
    async kustomize(directory: string): Promise<string> {
      const result = await runner.run(['kustomize', directory], {
        deadlineMs: runner.connection.readDeadlineMs,
        bounded: false,
      });
      if (result.exitCode !== 0) {
        const diagnosis = diagnoseKubectlFailure(result);
        if (diagnosis.kind === 'missing-binary') throw runner.failure('render the kustomization', result);
        throw new InputError(
          `kubectl kustomize ${directory} failed: ${diagnosis.detail}. Fix the kustomization; nothing was applied.`,
        );
      }
      return result.stdout;
    },

    /**
     * kubectl's own reading of the manifests: `kubectl apply --dry-run=client|server -o json` over
     * the same inputs. The client run names every object with its namespace resolved as kubectl
     * resolves it; the server run returns each object as the API server would store it.
     * With -o json kubectl prints the applied objects as one document (a List when there are
     * several), then one document per pruned object (apply.go printObjects, prune.go).
     */
    async dryRun(request: ApplyRequest, strategy: 'client' | 'server'): Promise<DryRunResult> {
      // A dry run changes nothing, so a transient failure is simply asked again.
      const result = await runner.retrying(() =>
        runner.run([...applyArgv(request), `--dry-run=${strategy}`, '-o', 'json'], {
          deadlineMs: request.deadlineMs,
          input: request.stdin,
        }),
      );
      if (result.exitCode !== 0) {
        if (diagnoseKubectlFailure(result).kind === 'missing-binary') throw runner.failure('run kubectl', result);
        return { ok: false, stderr: result.stderr, timedOut: result.timedOut === true };
      }
      const documents = jsonDocuments(result.stdout);
      const [first, ...rest] = documents;
      const objects = first ? itemsOfValue<KubeObject>(first) : [];
      runner.connection.observe?.([...objects, ...(rest as KubeObject[])]);
      return { ok: true, objects, pruned: rest as KubeObject[], warnings: result.stderr };
    },

    async readApplied(request: ApplyRequest): Promise<KubeObject[]> {
      const [, ...inputs] = applyCommand(request);
      const args = ['get', ...inputs, '-o', 'json', '--show-managed-fields', '--ignore-not-found'];
      const result = await runner.run(args, { deadlineMs: runner.connection.readDeadlineMs, input: request.stdin });
      if (result.exitCode !== 0) throw runner.failure('read the objects of the apply', result);
      return runner.observed(jsonDocuments(result.stdout).flatMap((document) => itemsOfValue<KubeObject>(document)));
    },

    /**
     * What a client-side dry run says it would do to each object, in kubectl's order. Its -o json
     * output cannot tell: for an object that exists it prints the live object, since the patch is
     * never sent (apply.go, DryRunClient).
     */
    async dryRunActions(request: ApplyRequest): Promise<AppliedObject[]> {
      const result = await runner.run([...applyArgv(request), '--dry-run=client'], {
        deadlineMs: request.deadlineMs,
        input: request.stdin,
      });
      if (result.exitCode !== 0) throw runner.failure('preview the apply', result);
      return parseApplyOutput(result.stdout);
    },

    /**
     * `kubectl diff` over the same inputs: the live objects against what the apply would make of
     * them, split per object. kubectl diff exits 1 when there are differences: that is an answer,
     * not a failure; above 1 it failed.
     */
    async diff(request: ApplyRequest, refs: readonly ObjectRef[]): Promise<Map<string, string[]>> {
      const args = ['diff', ...request.filenames.flatMap((filename) => ['-f', filename])];
      if (request.recursive) args.push('-R');
      if (request.namespace) args.push('-n', request.namespace);
      // Only the apply flags kubectl diff takes: it refuses the others.
      args.push(...request.applyArgs.filter((arg) => DIFF_FLAGS.test(arg)));
      const result = await runner.retrying(() =>
        runner.run(args, { deadlineMs: request.deadlineMs, input: request.stdin }),
      );
      if (result.exitCode !== 0 && result.exitCode !== 1)
        throw runner.failure('show the differences (kubectl diff)', result);
      return diffsByObject(result.stdout, refs);
    },

    apply: (request: ApplyRequest) => applyOnce(runner, request),

    holdApply(request: ApplyRequest): HeldApply {
      const bytes = request.stdin;
      if (bytes === undefined || request.filenames.length !== 1 || request.filenames[0] !== '-')
        throw new Error('kguard holds back only an apply of -f - with its bytes in hand');
      let give: (bytes: string | undefined) => void = () => undefined;
      const heldInput = new Promise<string | undefined>((resolve) => (give = resolve));
      let state: 'held' | 'released' | 'cancelled' = 'held';
      // kubectl ended before its input (it could not start, it failed on its flags): it read nothing, and the apply starts anew.
      let endedFirst = false;
      const first = runner.run(applyArgv(request), { deadlineMs: request.deadlineMs, heldInput });
      void first.then(() => {
        if (state !== 'released') endedFirst = true;
      });
      return {
        release() {
          if (state !== 'held') throw new Error(`this held apply was ${state} already`);
          state = 'released';
          if (endedFirst) return applyOnce(runner, request);
          give(bytes);
          return applyOnce(runner, request, first);
        },
        cancel() {
          if (state !== 'held') return;
          state = 'cancelled';
          give(undefined);
        },
        ended: first.then(() => undefined),
      };
    },
  };
}

/**
 * `kubectl apply`, tried again after a transient failure. Repeating it is safe only because
 * apply is idempotent: it sends the desired state, not a change, so objects the first attempt
 * already wrote come out unchanged the second time. What an attempt reported applied before it
 * failed is kept (a later attempt reports those objects as unchanged). The first attempt may be
 * a held kubectl already given its input.
 */
async function applyOnce(
  runner: KubectlRunner,
  request: ApplyRequest,
  started?: Promise<ExecResult>,
): Promise<AppliedObject[]> {
  const applied = new Map<string, AppliedObject>();
  let first = started;
  const result = await runner.retrying(async () => {
    const attempt = await (first ??
      runner.run(applyArgv(request), { deadlineMs: request.deadlineMs, input: request.stdin }));
    first = undefined;
    for (const object of parseApplyOutput(attempt.stdout)) {
      const key = `${object.resource}/${object.name}`;
      if (!applied.has(key) || applied.get(key)?.action === 'unchanged') applied.set(key, object);
    }
    return attempt;
  });
  if (result.exitCode !== 0)
    throw runner.failure('apply the manifests', result, [...applied.values()], {
      ms: request.deadlineMs,
      flag: '--timeout',
    });
  return [...applied.values()];
}
