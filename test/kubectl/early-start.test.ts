// What the CLI starts before the pipeline loads: the pin read from the kubeconfig file, the
// channel's proxy with the pinned flags, and the server dry run. Started only in the plain case;
// the dry run's answer is taken only by the exact call it was made for, once; otherwise it is
// stopped, and the run asks kubectl itself.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { adoptingEarly, startEarly, type EarlyStartInput } from '../../src/kubectl/early-start.js';
import type { ApiChannel } from '../../src/kubectl/channel/api-channel.js';
import { MAX_DATA_BYTES } from '../../src/manifests/limits.js';
import { PARSE_ABOVE_BYTES } from '../../src/manifests/quick-look.js';
import type { Exec, ExecOptions, ExecResult } from '../../src/kubectl/process/exec.js';
import { kubeconfigText } from './kubeconfig-fixture.js';

const DEPLOYMENT = `apiVersion: apps/v1
kind: Deployment
metadata: { name: web }
spec:
  selector: { matchLabels: { app: web } }
  template:
    metadata: { labels: { app: web } }
    spec: { containers: [{ name: web, image: nginx:1.25 }] }
`;

const ANSWER: ExecResult = { exitCode: 0, stdout: '{"kind":"List","items":[]}', stderr: '' };

/** A kubectl that answers when told to, and says what it was asked. */
function fakeExec() {
  const calls: Array<{ file: string; args: readonly string[]; options?: ExecOptions }> = [];
  let answer: (result: ExecResult) => void = () => undefined;
  const answered = new Promise<ExecResult>((resolve) => (answer = resolve));
  const exec: Exec = async (file, args, options) => {
    calls.push({ file, args, options });
    return answered;
  };
  return { exec, calls, answer: () => answer(ANSWER) };
}

let dir: string;
let kubeconfig: string;
let manifest: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'kguard-early-'));
  kubeconfig = path.join(dir, 'kubeconfig');
  manifest = path.join(dir, 'web.yaml');
  await writeFile(kubeconfig, kubeconfigText('prod'));
  await writeFile(manifest, DEPLOYMENT);
});
afterEach(async () => rm(dir, { recursive: true, force: true }));

function inputFor(overrides: Partial<EarlyStartInput> = {}, filenames = [manifest]): EarlyStartInput {
  return {
    binary: 'kubectl',
    connectionArgs: [`--kubeconfig=${kubeconfig}`],
    request: { filenames, recursive: false, applyArgs: ['--server-side'], deadlineMs: 300_000, namespace: 'shop' },
    requestTimeout: '30s',
    env: {},
    ...overrides,
  };
}

/** The argv after the connection flags, as the run's own server dry run has it (kubectl/client/apply-family.ts). */
const dryRunArgs = (file: string) => [
  'apply',
  '-f',
  file,
  '-n',
  'shop',
  '--server-side',
  '--dry-run=server',
  '-o',
  'json',
  '--request-timeout=30s',
];
const pinnedProd = () => [`--kubeconfig=${kubeconfig}`, '--context=prod', '--cluster=prod-cluster', '--user=deployer'];

/** A channel that notes what it was asked to start and whether it was closed. */
function fakeChannel() {
  const started: string[][] = [];
  let closed = false;
  const channel = {
    start: (connection: readonly string[]) => {
      started.push([...connection]);
      return true;
    },
    close: () => {
      closed = true;
    },
  } as unknown as ApiChannel;
  return { open: () => channel, started, closed: () => closed };
}

const start = (plan: EarlyStartInput, exec: Exec, channel = fakeChannel()) => startEarly(plan, exec, channel.open);

describe('startEarly', () => {
  it('pins the kubeconfig’s target, starts the proxy and the server dry run with it; the run’s call takes the answer once', async () => {
    const kubectl = fakeExec();
    const channel = fakeChannel();
    const early = await start(inputFor(), kubectl.exec, channel);
    expect(early!.target).toEqual({ context: 'prod', cluster: 'prod-cluster', user: 'deployer', namespace: 'shop' });
    expect(channel.started).toEqual([pinnedProd()]);
    expect(kubectl.calls.map((call) => [call.file, ...call.args])).toEqual([
      ['kubectl', ...pinnedProd(), ...dryRunArgs(manifest)],
    ]);
    expect(kubectl.calls[0]!.options?.timeoutMs).toBe(300_000);
    kubectl.answer();
    const taken = await early!.adopt('kubectl', [...pinnedProd(), ...dryRunArgs(manifest)]);
    expect(taken).toEqual({ ...ANSWER, early: true });
    expect(early!.wasted).toBe(false);
    // Once: a second dry run (after a dead run was finished) asks kubectl again.
    expect(await early!.adopt('kubectl', [...pinnedProd(), ...dryRunArgs(manifest)])).toBeUndefined();
  });

  it('pins once: a context switched in the kubeconfig after the start changes nothing of this run', async () => {
    const kubectl = fakeExec();
    const early = await start(inputFor(), kubectl.exec);
    await writeFile(kubeconfig, kubeconfigText('dev'));
    kubectl.answer();
    expect(early!.target.context).toBe('prod');
    expect(await early!.adopt('kubectl', [...pinnedProd(), ...dryRunArgs(manifest)])).toMatchObject({ early: true });
  });

  it('waits through other calls; another server dry run (a part of a phased apply) stops it', async () => {
    const kubectl = fakeExec();
    const early = await start(inputFor(), kubectl.exec);
    expect(await early!.adopt('kubectl', [...pinnedProd(), 'get', '--raw', '/version'])).toBeUndefined();
    expect(early!.wasted).toBe(false);
    expect(await early!.adopt('kubectl', [...pinnedProd(), ...dryRunArgs(dir)])).toBeUndefined();
    expect(early!.wasted).toBe(true);
    expect(kubectl.calls[0]!.options?.cancelSignal?.aborted).toBe(true);
  });

  it('stop() ends the dry run no call took, and the channel; the run’s cancel signal ends the dry run too', async () => {
    const first = fakeExec();
    const channel = fakeChannel();
    const stopped = await start(inputFor(), first.exec, channel);
    stopped!.stop();
    expect(first.calls[0]!.options?.cancelSignal?.aborted).toBe(true);
    expect(channel.closed()).toBe(true);
    expect(await stopped!.adopt('kubectl', [...pinnedProd(), ...dryRunArgs(manifest)])).toBeUndefined();

    const second = fakeExec();
    const cancel = new AbortController();
    await start(inputFor({ signal: cancel.signal }), second.exec);
    cancel.abort();
    expect(second.calls[0]!.options?.cancelSignal?.aborted).toBe(true);
  });

  it('keeps the user’s --context: the pin adds only the cluster and user', async () => {
    const kubectl = fakeExec();
    const channel = fakeChannel();
    const early = await start(
      inputFor({ connectionArgs: [`--kubeconfig=${kubeconfig}`, '--context=dev'] }),
      kubectl.exec,
      channel,
    );
    const pinned = [`--kubeconfig=${kubeconfig}`, '--context=dev', '--cluster=dev-cluster', '--user=dev-user'];
    expect(channel.started).toEqual([pinned]);
    kubectl.answer();
    expect(await early!.adopt('kubectl', [...pinned, ...dryRunArgs(manifest)])).toMatchObject({ early: true });
  });

  it('starts nothing outside the plain case', async () => {
    const crd = path.join(dir, 'crd.yaml');
    await writeFile(crd, 'apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n');
    const phased = path.join(dir, 'phased.yaml');
    await writeFile(phased, `${DEPLOYMENT}  annotations: { kguard.dev/phase: pre }\n`);
    const big = path.join(dir, 'big.yaml');
    await writeFile(big, `${DEPLOYMENT}# ${'x'.repeat(PARSE_ABOVE_BYTES)}\n`);
    const noContext = path.join(dir, 'no-context');
    await writeFile(noContext, 'apiVersion: v1\nkind: Config\n');
    const cases: Array<[string, EarlyStartInput]> = [
      ['a KGUARD_KUBECTL binary', inputFor({ binary: '/opt/kubectl-wrapper' })],
      ['stdin', inputFor({}, ['-'])],
      ['a URL', inputFor({}, ['https://example.com/web.yaml'])],
      ['a directory', inputFor({}, [dir])],
      ['a missing file', inputFor({}, [path.join(dir, 'nope.yaml')])],
      ['a CRD', inputFor({}, [manifest, crd])],
      ['a phase', inputFor({}, [phased])],
      ['a file limits.ts would parse', inputFor({}, [big])],
      ['no manifests (-k)', inputFor({}, [])],
      [
        'merged kubeconfig files',
        inputFor({ connectionArgs: [], env: { KUBECONFIG: `${kubeconfig}${path.delimiter}/x` } }),
      ],
      ['a server on the command line', inputFor({ connectionArgs: ['--server=https://x:6443'] })],
      ['an unreadable kubeconfig', inputFor({ connectionArgs: [`--kubeconfig=${path.join(dir, 'none')}`] })],
      ['a kubeconfig without a context', inputFor({ connectionArgs: [`--kubeconfig=${noContext}`] })],
    ];
    for (const [name, plan] of cases) {
      const kubectl = fakeExec();
      const channel = fakeChannel();
      expect(await start(plan, kubectl.exec, channel), name).toBeUndefined();
      expect(kubectl.calls, name).toEqual([]);
      expect(channel.started, name).toEqual([]);
    }
    const recursive = fakeExec();
    expect(
      await start({ ...inputFor(), request: { ...inputFor().request, recursive: true } }, recursive.exec),
    ).toBeUndefined();
    expect(recursive.calls).toEqual([]);
  });

  it('screens sizes exactly where limits.ts starts parsing', () => {
    expect(PARSE_ABOVE_BYTES).toBe(MAX_DATA_BYTES);
  });
});

describe('adoptingEarly', () => {
  it('answers the early dry run’s call from it, every other call from kubectl', async () => {
    const early = fakeExec();
    const started = await start(inputFor(), early.exec);
    early.answer();
    const asked: string[][] = [];
    const kubectl: Exec = async (_file, args) => {
      asked.push([...args]);
      return { exitCode: 0, stdout: 'from kubectl', stderr: '' };
    };
    const exec = adoptingEarly(kubectl, started!);
    expect((await exec('kubectl', [...pinnedProd(), 'get', '--raw', '/version'])).stdout).toBe('from kubectl');
    expect((await exec('kubectl', [...pinnedProd(), ...dryRunArgs(manifest)])).early).toBe(true);
    expect(asked).toEqual([[...pinnedProd(), 'get', '--raw', '/version']]);
  });
});
