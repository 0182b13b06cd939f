// The kwok stages are generated from a kube-sim scenario; kwok itself renders them in test/real.
// Here: the pure part, what a scenario turns into.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { loadScenario } from '../kube-sim/scenario.js';
import { kwokConfig, podStages } from './stages.js';

const scenario = loadScenario({
  registry: {
    'nginx:9.99': 'missing',
    xxxxxnginx: 'no-repository',
    'nginx:1.25': 'present',
    flaky: { rateLimitedPulls: 1 },
  },
});

describe('kwok stages from a kube-sim scenario', () => {
  it('one YAML document per Stage, each named once', () => {
    const documents = parseAllDocuments(kwokConfig(scenario)).map(
      (document) => document.toJSON() as { kind: string; metadata: { name: string } },
    );
    expect(documents.every((document) => document.kind === 'Stage')).toBe(true);
    const names = documents.map((document) => document.metadata.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names).toEqual(
      expect.arrayContaining([
        'node-initialize',
        'pod-create',
        'pod-start',
        'pull-nginx-9-99',
        'pull-backoff-xxxxxnginx',
        'crash-exit',
        'evict',
        'pod-delete',
      ]),
    );
  });

  it("a failing image carries kube-sim's containerd error; a repository entry fills in the tag of each pod", () => {
    const pulls = podStages(scenario).filter((stage) => stage.metadata.name.startsWith('pull-'));
    // Only entries that always fail: a pull that fails N times first has no stage.
    expect(pulls.map((stage) => stage.metadata.name)).toEqual([
      'pull-nginx-9-99',
      'pull-backoff-nginx-9-99',
      'pull-retry-nginx-9-99',
      'pull-xxxxxnginx',
      'pull-backoff-xxxxxnginx',
      'pull-retry-xxxxxnginx',
    ]);
    const missing = pulls[0]!.spec.next.statusTemplate!;
    expect(missing).toContain('docker.io/library/nginx:9.99: not found');
    expect(missing).toContain('reason: ErrImagePull');
    const noRepository = pulls[3]!.spec.next.statusTemplate!;
    expect(noRepository).toContain(
      String.raw`"failed to pull and unpack image \"docker.io/library/xxxxxnginx:" (ternary (regexReplaceAll "^.*:" $c.image "") "latest"`,
    );
    expect(pulls[1]!.spec.next.statusTemplate).toContain('Back-off pulling image %q: ErrImagePull: %s');
  });

  it("a missing tag's waiting messages are a real v1.37.2 kubelet's with containerd: the NotFound prefix kept", () => {
    // kube-sim/controllers/kubelet/fixtures/missing-tag.*.json, recorded from a real node (its README).
    const fixture = (name: string) =>
      JSON.parse(
        readFileSync(new URL(`../kube-sim/controllers/kubelet/fixtures/${name}`, import.meta.url), 'utf8'),
      ) as {
        items?: { message: string }[];
        status?: { containerStatuses: { image: string; state: { waiting: { message: string } } }[] };
      };
    const image = '127.0.0.1:45471/kguard/testapp:9.99';
    const failed = fixture('missing-tag.events.json').items!.find((event) =>
      event.message.startsWith(`Failed to pull image "${image}": `),
    )!.message;
    const pullError = failed.slice(`Failed to pull image "${image}": `.length);
    expect(pullError).toMatch(/^rpc error: code = NotFound desc = failed to pull and unpack image /);
    const backOff = fixture('missing-tag.pod.json').status!.containerStatuses[0]!.state.waiting.message;

    const pulls = podStages(loadScenario({ registry: { [image]: 'missing' } })).filter((stage) =>
      stage.metadata.name.startsWith('pull-'),
    );
    // The Go template's one `print "…"` of a tagged entry, and its printf for the back-off text.
    const printed = (template: string) => {
      const quoted = /\(print ("(?:[^"\\]|\\.)*")\)/.exec(template)?.[1];
      return quoted === undefined ? undefined : (JSON.parse(quoted) as string);
    };
    const [errImagePull, imagePullBackOff] = pulls.map((stage) => stage.spec.next.statusTemplate!);
    expect(printed(errImagePull!)).toBe(pullError);
    expect(imagePullBackOff).toContain('printf "Back-off pulling image %q: ErrImagePull: %s" $c.image');
    expect(`Back-off pulling image ${JSON.stringify(image)}: ErrImagePull: ${printed(imagePullBackOff!)}`).toBe(
      backOff,
    );
  });

  it('PodReadyToStartContainers as a v1.37.2 kubelet writes it: no sandbox yet, ready, stopped once the pod ended', () => {
    const stages = podStages(scenario);
    // The condition's fields in a stage's template (kwok renders only `{{ … }}`; these are plain).
    const sandbox = (name: string) => {
      const template = stages.find((stage) => stage.metadata.name === name)!.spec.next.statusTemplate!;
      const block = /- type: PodReadyToStartContainers\n((?: {2}.*\n)+)/.exec(template)?.[1] ?? '';
      const field = (key: string) => new RegExp(`^  ${key}: (.*)$`, 'm').exec(block)?.[1];
      return { status: field('status'), reason: field('reason'), message: field('message') };
    };
    expect(sandbox('pod-create')).toEqual({
      status: '"False"',
      reason: 'PodSandboxNotReady',
      message: '"no pod sandbox exists"',
    });
    expect(sandbox('pod-start')).toEqual({ status: '"True"', reason: '""', message: '""' });
    for (const ended of ['crash-fail', 'job-complete', 'evict'])
      expect(sandbox(ended)).toEqual({
        status: '"False"',
        reason: 'PodSandboxNotReady',
        message: '"pod sandbox is not ready"',
      });
  });

  it('selects failing pods by image with a jq test, and keeps them out of the healthy start', () => {
    const start = podStages(scenario).find((stage) => stage.metadata.name === 'pod-start')!;
    expect(start.spec.selector.matchExpressions).toContainEqual({
      key: String.raw`[.spec.containers.[].image | test("(^nginx:9\\.99$)|(^xxxxxnginx(:[^/:]+)?$)")] | any`,
      operator: 'In',
      values: ['false'],
    });
  });

  it('refuses a registry pattern, which a selector cannot name', () => {
    expect(() => podStages(loadScenario({ registry: { 'ghcr.io/acme/*': 'missing' } }))).toThrow(
      /need an image or a repository, not a pattern/,
    );
  });
});
