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
  const values: string[] = [];
  let documents;
  try {
    documents = parseAllDocuments(text, { version: '1.1', uniqueKeys: false });
  } catch {
    return values;
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

