// A --verify-job file, read before the apply (verify/job-manifest.ts): one batch/v1 Job, named,
// namespaced and labelled with its run; anything else is refused with exit 1, nothing applied.
import { describe, expect, it } from 'vitest';
import { InputError, KubectlError } from '../../src/errors.js';
import type { WriteResult } from '../../src/kubectl/types.js';
import { checkVerifyJob, generatedName, verifyJobOf } from '../../src/verify/job-manifest.js';

const context = { namespace: 'shop', runId: 'kguard-mx7-abc' };
const job = (metadata: string, spec = '') => `apiVersion: batch/v1
kind: Job
metadata:
${metadata}
spec:
${spec}  template:
    spec:
      restartPolicy: Never
      containers: [{ name: smoke, image: curlimages/curl:8.8.0 }]
`;

describe('verifyJobOf', () => {
  it("names a generateName Job as the API server would, in the apply's namespace, labelled with the run", () => {
    const prepared = verifyJobOf('smoke.yaml', job('  generateName: smoke-'), context, () => 0);
    expect(prepared.ref).toEqual({ apiVersion: 'batch/v1', kind: 'Job', namespace: 'shop', name: 'smoke-bbbbb' });
    expect(prepared.collectionPath).toBe('/apis/batch/v1/namespaces/shop/jobs');
    expect(prepared.job.metadata).toEqual({
      name: 'smoke-bbbbb',
      namespace: 'shop',
      labels: {
        'app.kubernetes.io/managed-by': 'kguard',
        'kguard.dev/run': 'kguard-mx7-abc',
        'kguard.dev/verify': 'job',
      },
    });
  });

  it('keeps a name and a namespace the file gives, and its own labels', () => {
    const prepared = verifyJobOf(
      'smoke.yaml',
      job('  name: smoke\n  namespace: qa\n  labels: { team: checkout }'),
      context,
    );
    expect(prepared.ref).toMatchObject({ namespace: 'qa', name: 'smoke' });
    expect(prepared.job.metadata.labels).toMatchObject({ team: 'checkout', 'kguard.dev/run': 'kguard-mx7-abc' });
  });

  it.each([
    [
      'another kind',
      'apiVersion: v1\nkind: Pod\nmetadata: { name: x }\n',
      /holds a Pod \(v1\); it must hold one batch\/v1 Job/,
    ],
    ['two documents', `${job('  name: a')}---\n${job('  name: b')}`, /holds 2 documents/],
    ['no name', job('  labels: { a: b }'), /neither metadata.name nor metadata.generateName/],
    ['a suspended Job', job('  name: smoke', '  suspend: true\n'), /suspended/],
    ['bad YAML', 'kind: Job\nmetadata: { name: x\n', /not valid YAML/],
  ])('refuses %s before anything is applied', (_, text, message) => {
    expect(() => verifyJobOf('smoke.yaml', text, context)).toThrow(InputError);
    expect(() => verifyJobOf('smoke.yaml', text, context)).toThrow(message);
  });
});

describe('generatedName', () => {
  it("cuts the prefix to 58 characters and adds 5 of the API server's alphabet", () => {
    const name = generatedName(`${'a'.repeat(70)}-`);
    expect(name).toHaveLength(63);
    expect(name.slice(58)).toMatch(/^[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  });
});

describe('checkVerifyJob', () => {
  const prepared = verifyJobOf('smoke.yaml', job('  name: smoke'), context);
  const kubectl = (existing: boolean, dryRun: WriteResult) => ({
    paths: [] as string[],
    async getObject() {
      return existing ? prepared.job : undefined;
    },
    async create(_object: unknown, path: string) {
      this.paths.push(path);
      return dryRun;
    },
  });
  const refused = (stderr: string, notFound = false): WriteResult => ({
    ok: false,
    conflict: false,
    notFound,
    message: stderr,
    stderr,
  });
  const checkContext = { createdNamespaces: new Set<string>(), deadlineMs: 5000 };

  it('asks the API server with a dry run, and passes when it takes the Job', async () => {
    const fake = kubectl(false, { ok: true });
    await checkVerifyJob(prepared, checkContext, fake);
    expect(fake.paths).toEqual(['/apis/batch/v1/namespaces/shop/jobs?dryRun=All']);
  });

  it('refuses a name another Job has: kguard deletes only the Job it creates', async () => {
    await expect(checkVerifyJob(prepared, checkContext, kubectl(true, { ok: true }))).rejects.toThrow(
      /already exists in namespace shop.*generateName/,
    );
  });

  it('refuses what the API server refuses (exit 1), and a refusal of the rights to create Jobs (exit 2)', async () => {
    await expect(
      checkVerifyJob(
        prepared,
        checkContext,
        kubectl(
          false,
          refused('Error from server (Invalid): spec.template.spec.restartPolicy: Unsupported value: "Always"'),
        ),
      ),
    ).rejects.toThrow(InputError);
    await expect(
      checkVerifyJob(
        prepared,
        checkContext,
        kubectl(false, refused('Error from server (Forbidden): jobs.batch is forbidden')),
      ),
    ).rejects.toThrow(KubectlError);
  });

  it('waives "not found" for a namespace the apply creates', async () => {
    await checkVerifyJob(
      prepared,
      { ...checkContext, createdNamespaces: new Set(['shop']) },
      kubectl(false, refused('Error from server (NotFound): namespaces "shop" not found', true)),
    );
    await expect(
      checkVerifyJob(
        prepared,
        checkContext,
        kubectl(false, refused('Error from server (NotFound): namespaces "shop" not found', true)),
      ),
    ).rejects.toThrow(InputError);
  });
});
