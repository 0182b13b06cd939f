// A --verify-job file, read once before the apply: exactly one batch/v1 Job, named (a
// generateName gets its suffix here, so a retried create can never make a second Job), in the
// apply's namespace unless it names one, and labelled with the run that creates it. Refused
// before anything is applied (exit 1) when it is not that, when a Job of that name exists, or
// when the API server's dry run refuses it. Reading and checking are pure; the reads are passed in.
import { randomInt } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { parseAllDocuments } from 'yaml';
import { InputError, KubectlError } from '../errors.js';
import { MANAGED_BY, MANAGED_BY_LABEL, RUN_LABEL } from '../journal/labels.js';
import type { Kubectl } from '../kubectl/types.js';
import { objectKey, type KubeObject, type ObjectRef } from '../objects/model.js';

// yaml: this module is loaded with the apply (a part of the CLI bundle of its own), not at start-up.

/** On the Jobs kguard creates to verify a run (with kguard.dev/run): what they are, for a person listing Jobs. */
export const VERIFY_LABEL = 'kguard.dev/verify';

export interface PreparedJob {
  file: string;
  /** The Job as it will be created: named, namespaced, labelled. */
  job: KubeObject;
  ref: ObjectRef;
  /** Its collection's REST path: /apis/batch/v1/namespaces/NS/jobs. */
  collectionPath: string;
}

/**
 * A name from a generateName, as the API server makes one (apiserver pkg/storage/names/generate.go
 * SimpleNameGenerator: the prefix cut to 58 characters, then 5 of "bcdfghjklmnpqrstvwxz2456789").
 */
export function generatedName(prefix: string, random: (max: number) => number = randomInt): string {
  const alphabet = 'bcdfghjklmnpqrstvwxz2456789';
  const suffix = Array.from({ length: 5 }, () => alphabet[random(alphabet.length)]).join('');
  return `${prefix.slice(0, 58)}${suffix}`;
}

/** The Job in one file's text, made ready to create; an InputError says what is wrong with it. Pure but for the random name. */
export function verifyJobOf(
  file: string,
  text: string,
  context: { namespace: string; runId: string },
  random?: (max: number) => number,
): PreparedJob {
  const refuse = (why: string) => new InputError(`--verify-job ${file}: ${why}. Nothing was applied.`);
  let documents: unknown[];
  try {
    documents = parseAllDocuments(text, { version: '1.1' })
      .map((document) => {
        if (document.errors.length > 0) throw new Error(document.errors[0]!.message);
        return document.toJS() as unknown;
      })
      .filter((content) => content !== null && content !== undefined);
  } catch (error) {
    throw refuse(`it is not valid YAML (${error instanceof Error ? error.message.split('\n')[0] : String(error)})`);
  }
  if (documents.length !== 1) throw refuse(`it holds ${documents.length} documents; it must hold exactly one Job`);
  const object = documents[0] as Partial<KubeObject> & { spec?: { suspend?: unknown } };
  if (object?.apiVersion !== 'batch/v1' || object.kind !== 'Job') {
    throw refuse(
      `it holds a ${String(object?.kind ?? 'document without kind')} (${String(object?.apiVersion ?? 'no apiVersion')}); it must hold one batch/v1 Job`,
    );
  }
  if (object.spec?.suspend === true) throw refuse('the Job is suspended (spec.suspend: true), so it would never run');
  const metadata = { ...(object.metadata ?? {}) } as KubeObject['metadata'] & { generateName?: string };
  const name =
    metadata.name ??
    (typeof metadata.generateName === 'string' ? generatedName(metadata.generateName, random) : undefined);
  if (!name)
    throw refuse(
      'the Job has neither metadata.name nor metadata.generateName (generateName gives each run its own Job)',
    );
  delete metadata.generateName;
  const namespace = metadata.namespace ?? context.namespace;
  const job: KubeObject = {
    ...(object as KubeObject),
    metadata: {
      ...metadata,
      name,
      namespace,
      labels: {
        ...(metadata.labels ?? {}),
        [MANAGED_BY_LABEL]: MANAGED_BY,
        [RUN_LABEL]: context.runId,
        [VERIFY_LABEL]: 'job',
      },
    },
  };
  return {
    file,
    job,
    ref: { apiVersion: 'batch/v1', kind: 'Job', namespace, name },
    collectionPath: `/apis/batch/v1/namespaces/${encodeURIComponent(namespace)}/jobs`,
  };
}

/**
 * Before the apply: no Job of that name may exist (kguard deletes only the Job it created), and
 * the API server must take it (a server dry run: validation, quota, RBAC). A namespace the apply
 * itself creates cannot be asked yet: its "not found" is waived.
 */
export async function checkVerifyJob(
  prepared: PreparedJob,
  context: { createdNamespaces: ReadonlySet<string>; deadlineMs: number },
  kubectl: Pick<Kubectl, 'getObject' | 'create'>,
): Promise<void> {
  const { ref, file } = prepared;
  const existing = await kubectl.getObject('jobs.batch', ref.namespace, ref.name);
  if (existing) {
    throw new InputError(
      `--verify-job ${file}: job/${ref.name} already exists in namespace ${ref.namespace}, and kguard deletes only the verify Job it creates. ` +
        'Give the Job metadata.generateName instead of a name (each run gets its own), or delete the old one. Nothing was applied.',
    );
  }
  const dryRun = await kubectl.create(prepared.job, `${prepared.collectionPath}?dryRun=All`, context.deadlineMs);
  if (dryRun.ok || (dryRun.notFound && context.createdNamespaces.has(ref.namespace))) return;
  const why = `--verify-job ${file}: the API server refuses job/${ref.name} in namespace ${ref.namespace}: ${dryRun.message}`;
  if (/\(Forbidden\)/.test(dryRun.stderr)) {
    throw new KubectlError(
      `${why}. Next: grant create, get, list, watch and delete on jobs (group batch) in namespace ${ref.namespace}; nothing was applied.`,
      undefined,
      dryRun.stderr,
    );
  }
  throw new InputError(`${why}. Fix the Job; nothing was applied.`);
}

/** Every --verify-job file, read once and checked, before the apply. */
export async function prepareVerifyJobs(
  files: readonly string[],
  context: { namespace: string; runId: string; createdNamespaces: ReadonlySet<string>; deadlineMs: number },
  kubectl: Pick<Kubectl, 'getObject' | 'create'>,
): Promise<PreparedJob[]> {
  const prepared: PreparedJob[] = [];
  for (const file of files) {
    const text = await readFile(file, 'utf8').catch((error: unknown) => {
      throw new InputError(
        `--verify-job ${file}: cannot read it (${error instanceof Error ? error.message : String(error)}). Nothing was applied.`,
      );
    });
    const job = verifyJobOf(file, text, context);
    if (prepared.some((other) => objectKey(other.ref) === objectKey(job.ref)))
      throw new InputError(`--verify-job ${file}: job/${job.ref.name} is given twice. Nothing was applied.`);
    await checkVerifyJob(job, context, kubectl);
    prepared.push(job);
  }
  return prepared;
}
