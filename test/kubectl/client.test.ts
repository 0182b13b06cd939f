import { describe, expect, it } from 'vitest';
import { KubectlError } from '../../src/errors.js';
import {
  builtInTypesLack,
  jsonDocuments,
  parseApiResources,
  withOpenApiPatch,
} from '../../src/kubectl/output/parse.js';
import { createKubectl } from '../../src/kubectl/client.js';
import type { Exec, ExecResult } from '../../src/kubectl/process/exec.js';
import { deployment, kubectlStderr } from '../fixtures/load.js';

function recordingExec(answer: (args: readonly string[]) => ExecResult) {
  const calls: Array<{ file: string; args: readonly string[]; input?: string | Uint8Array; timeoutMs?: number }> = [];
  const exec: Exec = async (file, args, options) => {
    calls.push({ file, args, input: options?.input, timeoutMs: options?.timeoutMs });
    return answer(args);
  };
  return { exec, calls };
}

const ok = (stdout: string): ExecResult => ({ exitCode: 0, stdout, stderr: '' });
const connection = {
  binary: 'kubectl',
  connectionArgs: ['--kubeconfig=/k/config', '--context=prod'],
  requestTimeout: '30s',
  readDeadlineMs: 45_000,
};
const request = {
  filenames: ['app.yaml'],
  recursive: false,
  applyArgs: ['--server-side', '-l=app=web'],
  deadlineMs: 60_000,
};

describe('Kubectl', () => {
  it('reads a namespace in one call with the connection flags, a request timeout and a process deadline', async () => {
    const { exec, calls } = recordingExec(() => ok(JSON.stringify({ kind: 'List', items: [deployment('complete')] })));
    const snapshot = await createKubectl(exec, connection).workloadSnapshot('shop', [
      'deployments.apps',
      'replicasets.apps',
      'pods',
    ]);
    expect(snapshot.objects.map((item) => item.metadata.name)).toEqual(['web']);
    expect(calls).toEqual([
      {
        file: 'kubectl',
        args: [
          '--kubeconfig=/k/config',
          '--context=prod',
          'get',
          'deployments.apps,replicasets.apps,pods',
          '-n',
          'shop',
          '-o',
          'json',
          '--request-timeout=30s',
        ],
        input: undefined,
        timeoutMs: 45_000,
      },
    ]);
  });

  it('asks kubectl for its reading of the manifests with the same flags as the apply', async () => {
    const list = { kind: 'List', apiVersion: 'v1', items: [deployment('complete')] };
    const { exec, calls } = recordingExec(() => ok(JSON.stringify(list)));
    const result = await createKubectl(exec, connection).dryRun(request, 'server');
    expect(result).toMatchObject({ ok: true, pruned: [] });
    expect(result.ok && result.objects.map((object) => object.metadata.name)).toEqual(['web']);
    expect(calls[0]?.args).toEqual([
      '--kubeconfig=/k/config',
      '--context=prod',
      'apply',
      '-f',
      'app.yaml',
      '--server-side',
      '-l=app=web',
      '--dry-run=server',
      '-o',
      'json',
      '--request-timeout=30s',
    ]);
    expect(calls[0]?.timeoutMs).toBe(60_000);
  });

  it("has a client-side apply and its dry runs make patches from kubectl's own types (--openapi-patch=false), and only them", async () => {
    const { exec, calls } = recordingExec(() => ok(JSON.stringify({ kind: 'List', apiVersion: 'v1', items: [] })));
    const kubectl = createKubectl(exec, connection);
    const clientSide = { ...request, applyArgs: ['-l=app=web'] };
    await kubectl.dryRun(clientSide, 'server');
    await kubectl.dryRun(clientSide, 'client');
    await kubectl.apply(clientSide);
    await kubectl.readApplied(clientSide);
    // The user's own choice, and a server-side apply (which makes no patch), are left as they are.
    await kubectl.dryRun({ ...request, applyArgs: ['--openapi-patch=true'] }, 'server');
    await kubectl.dryRun(request, 'server');
    expect(calls.map((call) => call.args.filter((arg) => arg.startsWith('--openapi-patch')))).toEqual([
      ['--openapi-patch=false'],
      ['--openapi-patch=false'],
      ['--openapi-patch=false'],
      [],
      ['--openapi-patch=true'],
      [],
    ]);
  });

  it("tells kubectl's refusal to patch a field its own types lack, and asks again with its default", () => {
    const refused =
      'error: error when creating patch with:\noriginal:\n{}\nfor: "app.yaml": unable to find api field in struct EnvVarSource for the json field "fileKeyRef"';
    expect(builtInTypesLack(refused)).toBe(true);
    expect(builtInTypesLack('Error from server (Invalid): Deployment.apps "web" is invalid')).toBe(false);
    expect(withOpenApiPatch({ ...request, applyArgs: ['-l=app=web'] }).applyArgs).toEqual([
      '-l=app=web',
      '--openapi-patch=true',
    ]);
  });

  it('separates pruned objects (printed after the applied ones) from the applied ones', async () => {
    const applied = deployment('complete');
    const pruned = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'old' } };
    const { exec } = recordingExec(() =>
      ok(`${JSON.stringify(applied, null, 4)}\n${JSON.stringify(pruned, null, 4)}\n`),
    );
    const result = await createKubectl(exec, connection).dryRun(request, 'server');
    expect(result.ok && result.objects.map((object) => object.kind)).toEqual(['Deployment']);
    expect(result.ok && result.pruned.map((object) => object.metadata.name)).toEqual(['old']);
  });

  it('does not mistake an object with a top-level items field for a List', async () => {
    const custom = {
      apiVersion: 'example.com/v1',
      kind: 'Basket',
      metadata: { name: 'b' },
      items: [{ name: 'apple' }],
    };
    const { exec } = recordingExec(() => ok(JSON.stringify(custom)));
    const result = await createKubectl(exec, connection).dryRun(request, 'client');
    expect(result.ok && result.objects).toEqual([custom]);
  });

  it('writes a restore with a raw PUT under its own field manager, so kubectl leaves the body untouched', async () => {
    const object = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg', resourceVersion: '7' } };
    const { exec, calls } = recordingExec(() => ok(JSON.stringify(object)));
    const result = await createKubectl(exec, connection).replace(
      object,
      '/api/v1/namespaces/shop/configmaps/cfg',
      20_000,
    );
    expect(result).toEqual({ ok: true, object });
    expect(calls[0]?.args).toEqual([
      '--kubeconfig=/k/config',
      '--context=prod',
      'replace',
      '--raw',
      '/api/v1/namespaces/shop/configmaps/cfg?fieldManager=kguard-restore',
      '-f',
      '-',
      // A request may not outlive its process: the 20 s deadline bounds it, not the 30 s default.
      '--request-timeout=20s',
    ]);
    expect(JSON.parse(String(calls[0]?.input))).toEqual(object);
  });

  it('reports a 409 from a conditional write as a conflict, not a failure to retry blindly', async () => {
    const stderr =
      'Error from server (Conflict): Operation cannot be fulfilled on configmaps "cfg": the object has been modified; please apply your changes to the latest version and try again\n';
    const { exec } = recordingExec(() => ({ exitCode: 1, stdout: '', stderr }));
    const result = await createKubectl(exec, connection).replace(
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg' } },
      '/api/v1/namespaces/shop/configmaps/cfg',
      1000,
    );
    expect(result).toMatchObject({ ok: false, conflict: true, notFound: false });
  });

  it('deletes with a uid precondition in the request body', async () => {
    const { exec, calls } = recordingExec(() => ok('{"kind":"Status","status":"Success"}'));
    await createKubectl(exec, connection).deleteExact('/api/v1/namespaces/shop/services/web', { uid: 'u-1' }, 1000);
    expect(calls[0]?.args.slice(2, 7)).toEqual(['delete', '--raw', '/api/v1/namespaces/shop/services/web', '-f', '-']);
    expect(JSON.parse(String(calls[0]?.input))).toMatchObject({ kind: 'DeleteOptions', preconditions: { uid: 'u-1' } });
  });

  it('turns an unreachable cluster into a KubectlError that says what to do', async () => {
    const { exec } = recordingExec(() => ({
      exitCode: 1,
      stdout: '',
      stderr: kubectlStderr('get-connection-refused'),
    }));
    const failure = createKubectl(exec, connection).workloadSnapshot('shop', ['pods']);
    await expect(failure).rejects.toBeInstanceOf(KubectlError);
    await expect(failure).rejects.toThrow(/was refused.*Next: check that the cluster is up/);
  });

  it('says a kubectl call that ran past its deadline was killed, naming the deadline and its flag', async () => {
    const { exec } = recordingExec(() => ({ exitCode: 124, stdout: '', stderr: '', timedOut: true }));
    await expect(createKubectl(exec, connection).apply(request)).rejects.toThrow(
      /did not apply the manifests within \S+ \(--timeout\) and was killed/,
    );
  });

  it('shows every object it reads to the observer, so Secret values already in the cluster can be redacted', async () => {
    const secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's', namespace: 'shop' },
      data: { k: 'c2VjcmV0' },
    };
    const seen: unknown[] = [];
    // A read by name is one GET of the object (a Secret's path needs no discovery); a list answers a List.
    const { exec, calls } = recordingExec((args) =>
      ok(
        JSON.stringify(args.includes('/api/v1/namespaces/shop/secrets/s') ? secret : { kind: 'List', items: [secret] }),
      ),
    );
    const kubectl = createKubectl(exec, { ...connection, observe: (objects) => seen.push(...objects) });
    await kubectl.listObjects('shop', ['Secret.v1.']);
    await kubectl.getObject('Secret.v1.', 'shop', 's');
    expect(seen).toEqual([secret, secret]);
    expect(calls.at(-1)?.args).toContain('/api/v1/namespaces/shop/secrets/s');
  });

  it('quotes manual commands so they can be pasted into a shell', () => {
    const kubectl = createKubectl(recordingExec(() => ok('')).exec, {
      ...connection,
      connectionArgs: ['--kubeconfig=/my configs/k', '--context=prod'],
    });
    expect(kubectl.commandLine(['replace', '-f', '/tmp/x.json'])).toBe(
      "kubectl '--kubeconfig=/my configs/k' --context=prod replace -f /tmp/x.json",
    );
  });
});

describe('jsonDocuments', () => {
  it('splits concatenated JSON values, braces inside strings included', () => {
    expect(jsonDocuments('{"a":"}{"}\n{"b":[1,{"c":"]"}]}')).toEqual([{ a: '}{' }, { b: [1, { c: ']' }] }]);
  });
});

describe('parseApiResources', () => {
  it('reads plural names and scope by group and kind from kubectl api-resources -o wide', () => {
    const stdout = [
      'NAME          SHORTNAMES   APIVERSION   NAMESPACED   KIND         VERBS                                                        CATEGORIES',
      'configmaps    cm           v1           true         ConfigMap    create,delete,deletecollection,get,list,patch,update,watch   ',
      'namespaces    ns           v1           false        Namespace    create,delete,get,list,patch,update,watch                    ',
      'deployments   deploy       apps/v1      true         Deployment   create,delete,deletecollection,get,list,patch,update,watch   all',
    ].join('\n');
    const resources = parseApiResources(stdout);
    expect(resources.get('/ConfigMap')).toEqual({ name: 'configmaps', namespaced: true });
    expect(resources.get('/Namespace')).toEqual({ name: 'namespaces', namespaced: false });
    expect(resources.get('apps/Deployment')).toEqual({ name: 'deployments', namespaced: true });
  });
});
