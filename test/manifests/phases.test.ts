// The phase split on real manifests: documents cut where kubectl cuts them, each keeping its bytes,
// and put in the phase (and part) kubectl will read them in.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { splitDocuments } from '../../src/manifests/documents.js';
import { planPhases, type PlacedDocument } from '../../src/manifests/phases.js';

const fixture = (name: string) => readFileSync(fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url)), 'utf8');
const CRD = fixture('manifests/shirt-resource-definition.yaml');
const SHIRTS = fixture('manifests/shirt-resources.yaml');
const HELM_HOOKS = fixture('corpus/files/argoproj-argocd-example-apps__helm-hooks__manifests.yaml');
const GUESTBOOK = fixture('corpus/files/argoproj-argocd-example-apps__guestbook__guestbook-ui-deployment.yaml');

function placed(origin: string, text: string): PlacedDocument[] {
  return splitDocuments(text)!.map((document) => ({ origin, document }));
}

function summary(parts: ReturnType<typeof planPhases>) {
  return parts?.map(
    (part) =>
      `${part.phase}${part.custom ? ' (custom)' : ''}: ${part.documents.map(({ origin, document }) => `${origin}#${document.index} ${document.head?.kind}/${document.head?.name}`).join(', ')}`,
  );
}

describe('splitDocuments', () => {
  it('cuts at --- lines as kubectl does and keeps every document byte for byte', () => {
    const documents = splitDocuments(SHIRTS)!;
    expect(documents.map((document) => document.head?.name)).toEqual(['example1', 'example2', 'example3']);
    // Put back together with kubectl's separator, the documents are the file.
    expect(`---\n${documents.map((document) => document.text).join('---\n')}`).toBe(SHIRTS);
    expect(documents.every((document) => !document.json)).toBe(true);
  });

  it('reads what a CRD defines', () => {
    const [crd] = splitDocuments(CRD)!;
    expect(crd!.head).toMatchObject({
      kind: 'CustomResourceDefinition',
      name: 'shirts.stable.example.com',
      defines: { group: 'stable.example.com', kind: 'Shirt' },
    });
  });

  it('leaves out documents with nothing in them, as kubectl skips them', () => {
    const documents = splitDocuments(
      '# a comment\n---\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n--- # end\n# trailing\n',
    )!;
    expect(documents.map((document) => [document.index, document.head?.name])).toEqual([[1, 'a']]);
  });

  it('keeps a JSON stream whole (kubectl decodes a file starting with { as JSON)', () => {
    const text = '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}}\n';
    expect(splitDocuments(text)).toEqual([
      { index: 1, text, json: true, head: { apiVersion: 'v1', kind: 'ConfigMap', name: 'a', phase: undefined } },
    ]);
  });

  it('gives up on a separator kubectl refuses (--- followed by text): kubectl reads that file whole and says why', () => {
    expect(splitDocuments('apiVersion: v1\n--- kind: ConfigMap\n')).toBeUndefined();
  });
});

describe('planPhases', () => {
  it('needs no phases for an apply without CRDs or kguard.dev/phase (Helm and Argo CD hook annotations are not read)', () => {
    expect(planPhases([...placed('guestbook.yaml', GUESTBOOK), ...placed('hooks.yaml', HELM_HOOKS)])).toBeUndefined();
  });

  it('puts the CRD first and the objects of its kind in a part of their own, whatever the file order', () => {
    const parts = planPhases([
      ...placed('shirts.yaml', SHIRTS),
      ...placed('guestbook.yaml', GUESTBOOK),
      ...placed('crd.yaml', CRD),
    ]);
    expect(summary(parts)).toEqual([
      'definitions: crd.yaml#1 CustomResourceDefinition/shirts.stable.example.com',
      'main: guestbook.yaml#1 Deployment/guestbook-ui',
      'main (custom): shirts.yaml#1 Shirt/example1, shirts.yaml#2 Shirt/example2, shirts.yaml#3 Shirt/example3',
    ]);
  });

  it('orders pre, main and post by kguard.dev/phase; Namespaces join the CRDs', () => {
    const pre = HELM_HOOKS.replace(
      '    helm.sh/hook: pre-install\n    helm.sh/hook-weight: "-2"',
      '    helm.sh/hook: pre-install\n    kguard.dev/phase: pre',
    );
    const post = HELM_HOOKS.replace('    helm.sh/hook: post-install\n', '    kguard.dev/phase: post\n');
    const namespace = 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n';
    const parts = planPhases([
      ...placed('a.yaml', pre).slice(0, 1),
      ...placed('b.yaml', post).slice(-1),
      ...placed('ns.yaml', namespace),
      ...placed('guestbook.yaml', GUESTBOOK),
    ]);
    expect(summary(parts)).toEqual([
      'definitions: ns.yaml#1 Namespace/shop',
      'pre: a.yaml#1 Job/undefined',
      'main: guestbook.yaml#1 Deployment/guestbook-ui',
      'post: b.yaml#5 Job/maint-page-down',
    ]);
  });

  it('refuses a phase it does not know, naming the document', () => {
    const text = GUESTBOOK.replace(
      'metadata:\n  name: guestbook-ui\n',
      'metadata:\n  name: guestbook-ui\n  annotations:\n    kguard.dev/phase: PreSync\n',
    );
    expect(() => planPhases(placed('guestbook.yaml', text))).toThrow(
      'guestbook.yaml (document 1): Deployment "guestbook-ui" has kguard.dev/phase: "PreSync", which is not a phase. Next: use "pre" (applied and healthy before the rest) or "post"',
    );
  });

  it('a List goes with its items: refused when they belong to different phases', () => {
    const list = `apiVersion: v1\nkind: List\nitems:\n- ${CRD.trimEnd().split('\n').join('\n  ')}\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n`;
    expect(() => planPhases(placed('list.yaml', list))).toThrow(
      'list.yaml (document 1): this List holds objects of different phases (definitions, main)',
    );
  });
});
