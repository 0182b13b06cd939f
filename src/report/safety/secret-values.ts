// The values of the Secrets a manifest text holds, learnt before kubectl reads it. Its own module,
// loaded with the pipeline (api/apply.ts), so the YAML parser is not loaded for `kguard --version`
// or a usage error, and is imported statically, so a bundle (esbuild) carries it.
import { parseAllDocuments } from 'yaml';
import { collectSecretValues } from './redact.js';

/**
 * Every value of every Secret in a stream of YAML or JSON documents (List items included):
 * `data` values are base64 (their decoded text is learned), `stringData` values are plain.
 * Unreadable documents are skipped: kubectl will say what is wrong with them.
 */
export function secretValuesIn(text: string): string[] {
  if (!MAY_NAME_A_SECRET.test(text)) return [];
  // Only the documents that may declare a Secret are parsed: a full parse of a thousand-object
  // bundle held ~40 MiB of syntax tree. A document marker at the start of a line always starts a
  // document (YAML 1.2 §9.1.3), so the split is the parser's; directives, or a part the parser
  // finds wrong, send the whole text through the parser as before.
  const parts = /^%/m.test(text)
    ? [text]
    : text.split(/^(?=---(?:[ \t]|\r?$))/m).filter((part) => MAY_NAME_A_SECRET.test(part));
  const values: string[] = [];
  for (const part of parts) {
    const found = valuesOf(part);
    if (found === undefined) return part === text ? [] : (valuesOf(text) ?? []);
    values.push(...found);
  }
  return values;
}

/**
 * The word itself, or an escape that could spell it: a YAML or JSON \x, \u or \U escape, or a
 * double-quoted YAML scalar joined across an escaped line break ("Sec\
 * ret" is "Secret").
 */
const MAY_NAME_A_SECRET = /Secret|\\[xuU]|\\\r?\n/;

/** The Secret values of one text's documents; undefined when the parser rejects the text as a whole. */
function valuesOf(text: string): string[] | undefined {
  const values: string[] = [];
  let documents: ReturnType<typeof parseAllDocuments>;
  try {
    documents = parseAllDocuments(text, { version: '1.1', uniqueKeys: false });
  } catch {
    return undefined;
  }
  for (const document of Array.isArray(documents) ? documents : [documents]) {
    let content: unknown;
    try {
      content = document.toJS({ maxAliasCount: -1 });
    } catch {
      continue;
    }
    collectSecretValues(content, values);
  }
  return values;
}
