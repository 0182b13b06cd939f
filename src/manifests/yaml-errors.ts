// Where kubectl's YAML errors are, as a file and line a CI annotation can point at. kubectl says
// `error parsing FILE: error converting YAML to JSON: yaml: line N: WHY`, where N counts from the
// start of the failing document, not of the file: kubectl's YAML reader (k8s.io/apimachinery
// util/yaml YAMLReader) splits a file at lines that are just `---` and decodes each document on
// its own. So the document is found again here (the first whose YAML does not parse, as kubectl
// stops at the first) and N is counted from its first line. Pure but for the reader it is given.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseDocument } from 'yaml';

export interface YamlErrorLocation {
  /** As kubectl named it, shown relative to the workspace when it is inside it. */
  file: string;
  line: number;
  /** kubectl's own words: "did not find expected node content". */
  message: string;
}

const KUBECTL_YAML_ERROR =
  /error parsing (.+?): error converting YAML to JSON: yaml: line (\d+): (.+?)(?=(?: error parsing .+?: error converting YAML| error parsing |\. Next:|\n|$))/g;

export function yamlErrorLocations(
  kubectlMessage: string,
  base: string,
  read: (file: string) => string | undefined = (file) => {
    try {
      return readFileSync(file, 'utf8');
    } catch {
      return undefined;
    }
  },
): YamlErrorLocation[] {
  return [...kubectlMessage.matchAll(KUBECTL_YAML_ERROR)].map((match) => {
    const [, file, lineInDocument, message] = match as unknown as [string, string, string, string];
    const text = read(file);
    const start = text === undefined ? 1 : failingDocumentStart(text);
    const shown = path.relative(base, path.resolve(file));
    return {
      file: shown.startsWith('..') || path.isAbsolute(shown) ? path.resolve(file) : shown,
      line: start + Number(lineInDocument) - 1,
      message,
    };
  });
}

/** The 1-based file line on which the first document whose YAML does not parse begins (kubectl's split). */
export function failingDocumentStart(text: string): number {
  const lines = text.split('\n');
  let start = 0;
  for (let index = 0; index <= lines.length; index += 1) {
    const atEnd = index === lines.length;
    // YAMLReader: a separator is a line that starts with `---` and has nothing but spaces after it.
    if (atEnd || /^---\s*$/.test(lines[index] as string)) {
      const chunk = lines.slice(start, index).join('\n');
      if (chunk.trim() !== '' && parseDocument(chunk).errors.length > 0) return start + 1;
      start = index + 1;
    }
  }
  return 1;
}
