// The kwok stages are generated from a kube-sim scenario; kwok itself renders them in test/real.
// Here: the pure part, what a scenario turns into.
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
