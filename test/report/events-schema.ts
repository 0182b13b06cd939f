// The shipped JSON Schema of the event stream (schema/events.schema.json), compiled once with ajv,
// for every test that reads an --events stream: each line must be one event the schema accepts.
import { existsSync, readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';

// vitest runs this file from test/report, the compiled tests from dist/test/report.
const schemaFile = ['../../schema/events.schema.json', '../../../schema/events.schema.json']
  .map((relative) => new URL(relative, import.meta.url))
  .find((file) => existsSync(file));
if (!schemaFile) throw new Error('schema/events.schema.json not found');
const schema = JSON.parse(readFileSync(schemaFile, 'utf8')) as {
  oneOf: Array<{ $ref: string }>;
  $defs: Record<string, { properties?: { kind?: { const?: string } } }>;
};
const ajv = new Ajv2020({ allErrors: true, strict: true });
const validate = ajv.compile(schema);

/** The kinds the schema describes, in its order. */
export const schemaKinds: string[] = schema.oneOf.map(
  ({ $ref }) => schema.$defs[$ref.replace('#/$defs/', '')]?.properties?.kind?.const ?? '?',
);

/** The schema's complaints about one event, one line each; empty when it is valid. */
export function eventSchemaErrors(event: unknown): string[] {
  if (validate(event)) return [];
  const kind = String((event as { kind?: unknown } | null)?.kind);
  // oneOf reports every branch: the branch of the event's own kind says what is wrong with it.
  const own = schemaKinds.includes(kind) ? ajv.getSchema(`urn:kguard:events:1#/$defs/Event_${kind}`) : undefined;
  const errors = own && !own(event) ? own.errors : validate.errors;
  return (errors ?? []).map(
    (error) => `${error.instancePath || '/'} ${error.message ?? 'is invalid'} ${JSON.stringify(error.params)}`,
  );
}

/** Parses an NDJSON stream and throws with every complaint unless each line is a valid event; returns the events. */
export function assertValidEventStream(
  text: string,
  context: string,
): Array<{ kind: string; seq: number } & Record<string, unknown>> {
  const lines = text.split('\n');
  if (lines.pop() !== '')
    throw new Error(`${context}: the event stream does not end with a newline:\n${text.slice(-500)}`);
  return lines.map((line, index) => {
    let event: unknown;
    try {
      event = JSON.parse(line);
    } catch (error) {
      throw new Error(
        `${context}: line ${index + 1} of the event stream is not JSON (${error instanceof Error ? error.message : String(error)}): ${line}`,
      );
    }
    const errors = eventSchemaErrors(event);
    if (errors.length > 0)
      throw new Error(
        `${context}: line ${index + 1} does not match schema/events.schema.json:\n${errors.join('\n')}\n${line}`,
      );
    return event as { kind: string; seq: number } & Record<string, unknown>;
  });
}
