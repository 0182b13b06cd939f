// Files named on apply's command line that kguard reads itself (kubectl reads the manifests):
// one that cannot be read is bad input (exit 1), before anything is applied.
import { InputError } from '../errors.js';

/** The text of a --fleet file; one that cannot be read is bad input (exit 1), before anything is applied. */
export async function readFleetFile(file: string): Promise<string> {
  const { readFile } = await import('node:fs/promises');
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new InputError(
      `--fleet ${file}: cannot read it (${code}); give a YAML or JSON file of waves (schema/fleet.schema.json).`,
    );
  }
}

/** The text of a --health-rules file; one that cannot be read is bad input (exit 1). */
export async function readHealthRules(file: string): Promise<string> {
  const { readFile } = await import('node:fs/promises');
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new InputError(
      `--health-rules ${file}: cannot read it (${code}); give a JSON or YAML file of rules (schema/health-rules.schema.json).`,
    );
  }
}
