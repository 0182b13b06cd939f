// The shipped JSON Schema of the report (schema/report.schema.json), compiled once with ajv, for
// the tests that check every report kguard produces against it.
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';

const schemaFile = new URL('../../../schema/report.schema.json', import.meta.url);
const sourceSchemaFile = new URL('../../schema/report.schema.json', import.meta.url);

function loadSchema(): object {
  // Compiled tests run from dist/test/report, vitest from test/report.
  for (const file of [sourceSchemaFile, schemaFile]) {
    try {
      return JSON.parse(readFileSync(file, 'utf8')) as object;
    } catch {
      // try the next location
    }
  }
  throw new Error('schema/report.schema.json not found');
}

const ajv = new Ajv2020({ allErrors: true, strict: true });
const validate = ajv.compile(loadSchema());

/** The schema's complaints about a report, one line each; empty when it is valid. */
export function reportSchemaErrors(report: unknown): string[] {
  if (validate(report)) return [];
  return (validate.errors ?? []).map(
    (error) => `${error.instancePath || '/'} ${error.message ?? 'is invalid'} ${JSON.stringify(error.params)}`,
  );
}

/** Throws with every complaint unless `stdout` is one JSON report the schema accepts. */
export function assertValidReport(stdout: string, context: string): void {
  let report: unknown;
  try {
    report = JSON.parse(stdout);
  } catch (error) {
    throw new Error(
      `${context}: stdout is not one JSON report (${error instanceof Error ? error.message : String(error)}):\n${stdout}`,
    );
  }
  const errors = reportSchemaErrors(report);
  if (errors.length > 0) {
    throw new Error(
      `${context}: the report does not match schema/report.schema.json:\n${errors.join('\n')}\n${stdout}`,
    );
  }
}
