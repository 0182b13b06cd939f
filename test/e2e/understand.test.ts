// kubectl is the parser: over real manifests from public repositories (test/fixtures/corpus, a copy
// of the shared reference corpus, sources in its SOURCES.md) and over edge cases of our own, the set of objects kguard says an apply
// holds must be exactly kubectl's, and what kubectl refuses kguard refuses, quoting kubectl.
import { readdirSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectl } from '../kube-sim/testing/kubectl.js';
import { sandbox, type Sandbox } from './harness.js';

const CORPUS = fileURLToPath(new URL('../fixtures/corpus/', import.meta.url));

interface Input {
  name: string;
  /** kubectl / kguard arguments naming the input. */
  args: string[];
}

function corpusInputs(): Input[] {
  const inputs: Input[] = [];
  for (const file of readdirSync(join(CORPUS, 'files')).sort())
    inputs.push({ name: `files/${file}`, args: ['-f', join(CORPUS, 'files', file)] });
  for (const dir of readdirSync(join(CORPUS, 'dirs')).sort())
    inputs.push({ name: `dirs/${dir}`, args: ['-f', join(CORPUS, 'dirs', dir)] });
  for (const dir of readdirSync(join(CORPUS, 'kustomize')).sort())
    inputs.push({ name: `kustomize/${dir}`, args: ['-k', join(CORPUS, 'kustomize', dir)] });
  return inputs;
}

const deployment = (name: string, extra = '') => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
${extra}spec:
  selector:
    matchLabels: {app: ${name}}
  template:
    metadata:
      labels: {app: ${name}}
    spec:
      containers:
      - name: c
        image: nginx:1.25
`;
const configMap = (name: string, namespace?: string) =>
  JSON.stringify({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, ...(namespace !== undefined ? { namespace } : {}) },
    data: { a: '1' },
  });

/** Shapes where a YAML reader of its own would disagree with kubectl (issue "A result you can trust"). */
const EDGE_CASES: Record<string, string | Buffer> = {
  'json-stream.json': `${configMap('one')}\n${configMap('two')}\n`,
  'duplicate-keys.yaml': deployment('first').replace('  name: first\n', '  name: first\n  name: second\n'),
  'document-end-marker.yaml': `${deployment('before')}...\n---\n${deployment('after')}`,
  'list.yaml': `apiVersion: v1\nkind: List\nitems:\n- ${configMap('in-list-a')}\n- ${configMap('in-list-b')}\n`,
  'items-without-list.yaml': `apiVersion: v1\nkind: ConfigMapList\nitems:\n- ${configMap('typed-list')}\n`,
  'empty-namespace.yaml': configMap('empty-ns', ''),
  'yaml11-namespace.yaml': `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: yaml11\n  namespace: on\ndata:\n  a: "1"\n`,
  'yaml11-key.yaml': `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: yaml11-key\ndata:\n  yes: "1"\n`,
  'utf16.yaml': Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(deployment('utf16'), 'utf16le')]),
  'bad-alias.yaml': `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: *nope\n`,
  'empty-documents.yaml': `---\n---\n${deployment('lonely')}---\n`,
  'generate-name.yaml': `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  generateName: gen-\n`,
};

let env: Sandbox;
beforeAll(async () => {
  env = await sandbox();
  // Objects in namespaces that exist, as a person's cluster has them.
  for (const namespace of ['sock-shop', 'kube-logging']) {
    await kubectl(env.cluster, ['create', 'namespace', namespace]);
  }
});
afterAll(async () => {
  await env.stop();
});

interface Reading {
  ok: boolean;
  objects: string[];
  error: string;
}

/** kubectl's own answer: `kubectl apply --dry-run=client -o json`, every object it prints. */
async function kubectlReading(args: string[]): Promise<Reading> {
  const result = await kubectl(env.cluster, ['apply', ...args, '--dry-run=client', '-o', 'json']);
  if (result.exitCode !== 0) return { ok: false, objects: [], error: result.stderr.trim().split('\n')[0] ?? '' };
  const parsed = JSON.parse(result.stdout) as { kind: string; items?: Identity[] } & Identity;
  const items = parsed.kind === 'List' && Array.isArray(parsed.items) ? parsed.items : [parsed];
  return { ok: true, objects: [...new Set(items.map(identity))].sort(), error: '' };
}

interface Identity {
  apiVersion: string;
  kind: string;
  metadata: { name?: string; namespace?: string };
}

function identity(object: Identity): string {
  return `${object.apiVersion}/${object.kind}/${object.metadata.namespace || '-'}/${object.metadata.name}`;
}

/** kguard's answer: a client-side preview, its JSON report's objects. */
async function kguardReading(args: string[]): Promise<Reading & { exitCode: number }> {
  const run = await env.kguard(['apply', ...args, '--dry-run=client', '-o', 'json']);
  const report = JSON.parse(run.stdout) as {
    objects?: Array<{ apiVersion: string; kind: string; namespace: string | null; name: string }>;
  };
  const objects = (report.objects ?? []).map(
    (object) => `${object.apiVersion}/${object.kind}/${object.namespace || '-'}/${object.name}`,
  );
  return { ok: run.exitCode === 0, objects: [...new Set(objects)].sort(), error: run.stderr, exitCode: run.exitCode };
}

/** kubectl leaves the namespace out for objects in the default one: kguard names it. */
function withDefaultNamespace(objects: string[], namespaced: Set<string>): string[] {
  return objects
    .map((object) => {
      const [apiVersion, kind, namespace, name] = splitIdentity(object);
      return namespace === '-' && namespaced.has(kind) ? `${apiVersion}/${kind}/default/${name}` : object;
    })
    .sort();
}

function splitIdentity(object: string): [string, string, string, string] {
  const parts = object.split('/');
  const name = parts.pop()!;
  const namespace = parts.pop()!;
  const kind = parts.pop()!;
  return [parts.join('/'), kind, namespace, name];
}

async function compare(input: Input, namespaced: Set<string>) {
  const [reference, ours] = await Promise.all([kubectlReading(input.args), kguardReading(input.args)]);
  if (!reference.ok) {
    expect(ours.ok, `${input.name}: kubectl refuses it (${reference.error}); kguard must too`).toBe(false);
    expect([1, 2], `${input.name}: exit code`).toContain(ours.exitCode);
    return { refused: true };
  }
  expect(ours.ok, `${input.name}: kubectl reads it; kguard refused: ${ours.error}`).toBe(true);
  expect(ours.objects, input.name).toEqual(withDefaultNamespace(reference.objects, namespaced));
  return { refused: false };
}

async function namespacedKinds(): Promise<Set<string>> {
  const result = await kubectl(env.cluster, ['api-resources', '--namespaced=true', '-o', 'wide', '--no-headers']);
  return new Set(
    result.stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => line.trim().split(/\s+/))
      .map((columns) => columns[columns.indexOf('true') + 1] ?? ''),
  );
}

async function inBatches<T>(items: T[], size: number, each: (item: T) => Promise<unknown>): Promise<void> {
  for (let start = 0; start < items.length; start += size)
    await Promise.all(items.slice(start, start + size).map(each));
}

describe("kguard's object set is kubectl's", () => {
  const corpus = corpusInputs();

  // 69 inputs, each read by kubectl and by a whole kguard run (several kubectl processes): on a
  // loaded 2-core machine that is more than the default 60 s, however it is batched.
  it(`over ${corpus.length} real manifests, files, directories and kustomizations`, async () => {
    expect(corpus.length, `the corpus is missing at ${CORPUS}`).toBeGreaterThan(60);
    const namespaced = await namespacedKinds();
    expect(namespaced.has('Deployment')).toBe(true);
    const results: Array<{ refused: boolean }> = [];
    await inBatches(corpus, 4, async (input) => results.push(await compare(input, namespaced)));
    // Most of the corpus is readable (the rest needs CRDs this cluster lacks, or is refused by kubectl
    // itself): the comparison is of object sets, not only of refusals.
    expect(results.filter((result) => !result.refused).length).toBeGreaterThanOrEqual(45);
  }, 150_000);

  it(`over ${Object.keys(EDGE_CASES).length} edge cases: JSON streams, duplicate keys, document markers, Lists, YAML 1.1, UTF-16, bad aliases`, async () => {
    const namespaced = await namespacedKinds();
    const inputs: Input[] = [];
    for (const [name, content] of Object.entries(EDGE_CASES)) {
      const path = join(env.dir, name);
      await writeFile(path, content);
      inputs.push({ name, args: ['-f', path] });
    }
    const results: Array<{ refused: boolean }> = [];
    await inBatches(inputs, 4, async (input) => results.push(await compare(input, namespaced)));
    expect(results.filter((result) => !result.refused).length).toBeGreaterThanOrEqual(6);
  });
});
