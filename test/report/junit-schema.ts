// JUnit XML validation against the JUnit schema Jenkins' xUnit tooling publishes (junit-4.xsd, MIT,
// vendored next to this file with the testcase `file` and `line` attributes added), with libxml2's
// validator compiled to WebAssembly (xmllint-wasm: no native build). Apache Ant's schema is not
// used: it has no <skipped>, which GitLab and Jenkins both read.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { validateXML } from 'xmllint-wasm';

// vitest runs this file from test/report; the compiled tests from dist/test/report.
const schemaFile = [
  new URL('./junit-4.xsd', import.meta.url),
  new URL('../../../test/report/junit-4.xsd', import.meta.url),
].find((file) => existsSync(file))!;

/** libxml2's complaints about the document, one per line; empty when it is valid. */
export async function junitSchemaErrors(xml: string): Promise<string[]> {
  const schema = await readFile(schemaFile, 'utf8');
  const result = await validateXML({
    xml: [{ fileName: 'report.xml', contents: xml }],
    schema: [{ fileName: 'junit.xsd', contents: schema }],
  });
  return result.valid ? [] : result.errors.map((error) => error.rawMessage);
}
