// Reading a --health-rules file's text (JSON or YAML) into rules, validated by the shipped JSON
// Schema (health-rules-schema.ts) with ajv. A bad file is an InputError (exit 1) naming the file,
// where in it, and what is wrong. Pure: the caller reads the file.
import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';
import { parse } from 'yaml';
import { InputError } from '../../errors.js';
import type { HealthRules } from '../../model/health-rules.js';
import { HEALTH_RULES_SCHEMA } from './health-rules-schema.js';

let validator: (((data: unknown) => boolean) & { errors?: ErrorObject[] | null }) | undefined;

function validate(): NonNullable<typeof validator> {
  validator ??= new Ajv2020({ allErrors: true, strict: true }).compile(HEALTH_RULES_SCHEMA);
  return validator;
}

export function parseHealthRules(text: string, file: string): HealthRules {
  let data: unknown;
  try {
    data = parse(text);
  } catch (error) {
    throw new InputError(
      `--health-rules ${file}: not JSON or YAML (${(error as Error).message.split('\n')[0]}); see schema/health-rules.schema.json.`,
    );
  }
  const check = validate();
  if (!check(data)) {
    const problems = (check.errors ?? [])
      .filter((error) => error.keyword !== 'oneOf')
      .slice(0, 5)
      .map(say);
    throw new InputError(
      `--health-rules ${file} does not follow schema/health-rules.schema.json: ${problems.join('; ')}.`,
    );
  }
  const rules = data as HealthRules;
  const ids = new Set<string>();
  for (const rule of rules.rules) {
    if (ids.has(rule.id))
      throw new InputError(
        `--health-rules ${file}: two rules are named ${JSON.stringify(rule.id)}; give each rule its own id.`,
      );
    ids.add(rule.id);
  }
  return rules;
}

function say(error: ErrorObject): string {
  const where = error.instancePath === '' ? 'the file' : error.instancePath;
  if (error.keyword === 'additionalProperties')
    return `${where} has an unknown field ${JSON.stringify((error.params as { additionalProperty: string }).additionalProperty)}`;
  return `${where} ${error.message ?? 'is not valid'}`;
}
