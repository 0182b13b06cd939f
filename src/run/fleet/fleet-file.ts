// Reading a fleet file's text (YAML or JSON) into a fleet plan's waves and per-context overrides,
// validated by the shipped JSON Schema (fleet-schema.ts) with ajv. A bad file is an InputError
// naming the file, the path in it and what is wrong, before anything is read from a cluster.
// Pure: the caller reads the file.
import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';
import { parse } from 'yaml';
import { parseDuration } from '../../duration.js';
import { InputError } from '../../errors.js';
import type { ContextOverrides, FleetPlan, FleetWave } from '../../model/fleet.js';
import { FLEET_SCHEMA } from './fleet-schema.js';

let validator: (((data: unknown) => boolean) & { errors?: ErrorObject[] | null }) | undefined;

function validate(): NonNullable<typeof validator> {
  validator ??= new Ajv2020({ allErrors: true, strict: true }).compile(FLEET_SCHEMA);
  return validator;
}

type ContextEntry = string | ({ context: string } & ContextOverrides);

interface FleetFile {
  waves: Array<{ contexts: ContextEntry[]; parallel?: number; bake?: string }>;
}

export function parseFleetFile(text: string, file: string): Pick<FleetPlan, 'waves' | 'overrides' | 'source'> {
  let data: unknown;
  try {
    data = parse(text);
  } catch (error) {
    throw new InputError(
      `--fleet ${file}: not YAML or JSON (${(error as Error).message.split('\n')[0]}); see schema/fleet.schema.json.`,
    );
  }
  const check = validate();
  if (!check(data)) {
    const problems = [...new Set((check.errors ?? []).filter((error) => error.keyword !== 'anyOf').map(say))].slice(
      0,
      5,
    );
    throw new InputError(`--fleet ${file} does not follow schema/fleet.schema.json: ${problems.join('; ')}.`);
  }
  const fleet = data as FleetFile;
  const seen = new Map<string, string>();
  const overrides: Record<string, ContextOverrides> = {};
  const waves: FleetWave[] = fleet.waves.map((wave, index) => {
    const contexts = wave.contexts.map((entry, position) => {
      const where = `/waves/${index}/contexts/${position}`;
      const { context, ...own } = typeof entry === 'string' ? { context: entry } : entry;
      const earlier = seen.get(context);
      if (earlier !== undefined)
        throw new InputError(
          `--fleet ${file}: ${where} names context ${context} again (first at ${earlier}); give each context once.`,
        );
      seen.set(context, where);
      if (Object.keys(own).length > 0) overrides[context] = own;
      return context;
    });
    const bakeMs =
      wave.bake === undefined ? undefined : parseDuration(wave.bake, `--fleet ${file}: /waves/${index}/bake`);
    return {
      contexts,
      ...(wave.parallel === undefined ? {} : { parallel: wave.parallel }),
      ...(bakeMs === undefined ? {} : { bakeMs }),
    };
  });
  return { waves, overrides, source: file };
}

function say(error: ErrorObject): string {
  const where = error.instancePath === '' ? 'the file' : error.instancePath;
  if (error.keyword === 'additionalProperties')
    return `${where} has an unknown field ${JSON.stringify((error.params as { additionalProperty: string }).additionalProperty)}`;
  if (error.keyword === 'pattern' && /\/bake$/.test(where))
    return `${where} is not a duration (use forms like 90s, 5m or 1m30s)`;
  return `${where} ${error.message ?? 'is not valid'}`;
}
