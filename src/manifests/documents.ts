// The documents of a manifest file, cut where kubectl cuts them, each with its own bytes, and what
// each one says it is (kind, name, its phase annotation, the kind a CRD defines). Pure. Only the
// phase split (phases.ts) reads these heads, to decide which kubectl apply a document goes to;
// what an apply holds is still kubectl's reading of the documents (run/apply/understand.ts).
import { parse } from 'yaml';

/** The annotation that puts an object before (`pre`) or after (`post`) the workloads. */
export const PHASE_ANNOTATION = 'kguard.dev/phase';

export interface DocumentHead {
  apiVersion?: string;
  kind?: string;
  name?: string;
  /** The value of kguard.dev/phase, as written. */
  phase?: string;
  /** For a CustomResourceDefinition: the kind it defines (spec.group, spec.names.kind). */
  defines?: { group: string; kind: string };
  /** For a List: its items' heads. */
  items?: DocumentHead[];
}

export interface ManifestDocument {
  /** 1-based position in its file, among the documents that hold something. */
  index: number;
  /** The document's own bytes, separator lines left out. */
  text: string;
  /** A JSON stream (kubectl decodes a file starting with `{` as JSON): the whole file is one document. */
  json: boolean;
  /** What it says it is; undefined when it is not one readable object (kubectl will say why). */
  head?: DocumentHead;
}

/**
 * A file's documents, as kubectl's reader cuts them (apimachinery pkg/util/yaml decoder.go,
 * YAMLReader.Read): at each line that starts with `---` followed by nothing but spaces or a
 * comment. A file whose first non-space byte is `{` is a JSON stream for kubectl
 * (YAMLOrJSONDecoder) and stays whole. Documents with no content (only comments) are left out:
 * kubectl skips them too. Undefined when kubectl would refuse the file's separators itself
 * (`invalid Yaml document separator`): it then goes to kubectl whole, and kubectl says so.
 */
export function splitDocuments(text: string): ManifestDocument[] | undefined {
  if (/^\s*\{/.test(text)) return [{ index: 1, text, json: true, head: headOf(text, true) }];
  const documents: ManifestDocument[] = [];
  let lines: string[] = [];
  let index = 0;
  const flush = () => {
    const body = lines.join('');
    lines = [];
    if (!hasContent(body)) return;
    index += 1;
    documents.push({ index, text: body, json: false, head: headOf(body, false) });
  };
  for (const line of text.split(/(?<=\n)/)) {
    if (line.startsWith('---')) {
      const rest = line.slice(3).trim();
      if (rest !== '' && !rest.startsWith('#')) return undefined;
      if (lines.length > 0) flush();
      continue;
    }
    lines.push(line);
  }
  if (lines.length > 0) flush();
  return documents;
}

function hasContent(body: string): boolean {
  return body.split('\n').some((line) => line.trim() !== '' && !line.trim().startsWith('#'));
}

function headOf(text: string, json: boolean): DocumentHead | undefined {
  let value: unknown;
  try {
    value = json ? JSON.parse(text) : parse(text, { uniqueKeys: false });
  } catch {
    return undefined;
  }
  return isObject(value) ? headOfObject(value) : undefined;
}

function headOfObject(value: Record<string, unknown>): DocumentHead {
  const metadata = isObject(value.metadata) ? value.metadata : {};
  const annotations = isObject(metadata.annotations) ? metadata.annotations : {};
  const head: DocumentHead = {
    apiVersion: stringOf(value.apiVersion),
    kind: stringOf(value.kind),
    name: stringOf(metadata.name),
    phase: stringOf(annotations[PHASE_ANNOTATION]),
  };
  if (head.kind === 'CustomResourceDefinition' && head.apiVersion?.startsWith('apiextensions.k8s.io/')) {
    const spec = isObject(value.spec) ? value.spec : {};
    const names = isObject(spec.names) ? spec.names : {};
    const group = stringOf(spec.group);
    const kind = stringOf(names.kind);
    if (group && kind) head.defines = { group, kind };
  }
  // kubectl applies a List's items one by one (kind List, or any kind ending in List).
  if (head.kind?.endsWith('List') && Array.isArray(value.items))
    head.items = value.items.filter(isObject).map(headOfObject);
  return head;
}

function stringOf(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
