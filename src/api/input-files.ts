// Files named on apply's command line that kguard reads itself (kubectl reads the manifests),
// read and parsed before anything is applied: --health-rules, --analysis and --fleet. One that cannot be read,
// or does not follow its schema, is bad input (exit 1). Their parsers (yaml, and ajv for the
// schemas) load only here: a plain `apply -f` never parses them.
import { readFile } from 'node:fs/promises';
import { InputError } from '../errors.js';
import type { FleetPlan } from '../model/fleet.js';
import type { HealthRules } from '../model/health-rules.js';
import type { AnalysisConfig } from '../model/analysis.js';

async function textOf(file: string, flag: string, expected: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new InputError(`${flag} ${file}: cannot read it (${code}); give ${expected}.`);
  }
}

/** A --fleet file's waves and per-context overrides. */
export async function readFleetFile(file: string): Promise<Pick<FleetPlan, 'waves' | 'overrides' | 'source'>> {
  const text = await textOf(file, '--fleet', 'a YAML or JSON file of waves (schema/fleet.schema.json)');
  return (await import('../run/fleet/fleet-file.js')).parseFleetFile(text, file);
}

/**
 * An --analysis file, parsed and checked against its schema; its credentials join the redactor.
 * Its queries are checked by Prometheus itself before the first write (run/apply/before-write/checks.ts).
 */
export async function readAnalysis(
  file: string,
  redactor?: { addValue(value: string): void },
): Promise<AnalysisConfig> {
  const text = await textOf(file, '--analysis', 'a YAML or JSON file of metrics (schema/analysis.schema.json)');
  const [{ parseAnalysis }, { secretValues }] = await Promise.all([
    import('../analysis/file.js'),
    import('../analysis/prometheus.js'),
  ]);
  const config = parseAnalysis(text, file);
  for (const value of secretValues(config.prometheus)) redactor?.addValue(value);
  return config;
}

/** A --health-rules file's rules. */
export async function readHealthRules(file: string): Promise<HealthRules> {
  const text = await textOf(file, '--health-rules', 'a JSON or YAML file of rules (schema/health-rules.schema.json)');
  return (await import('../kinds/health/health-rules-file.js')).parseHealthRules(text, file);
}
