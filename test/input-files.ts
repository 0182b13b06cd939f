// What the tests of kguard's input files (--analysis, --health-rules, --fleet) share: each file is
// validated by a schema kguard ships in schema/, and a bad file is an InputError (exit 1).
import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import { ExitCode, InputError } from '../src/errors.js';

/** The message of the InputError (exit 1) that `parse` throws; a parse that accepts fails the test. */
export function refusalOf(parse: () => unknown): string {
  try {
    parse();
  } catch (error) {
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).exitCode).toBe(ExitCode.InputError);
    return (error as Error).message;
  }
  throw new Error('accepted');
}

/** The shipped schema/`file` is the schema kguard validates with. */
export function expectShippedSchema(file: string, schema: unknown): void {
  const shipped = JSON.parse(readFileSync(new URL(`../schema/${file}`, import.meta.url), 'utf8')) as unknown;
  expect(shipped).toEqual(JSON.parse(JSON.stringify(schema)));
}
