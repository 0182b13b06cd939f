// Field selectors (`metadata.name=web,involvedObject.kind=Deployment,status.phase!=Running`).
// The real API accepts only a few fields per kind; this one accepts any dotted path, which is a
// superset of what kubectl and kguard send.

import { badRequest } from '../errors.js';
import type { KubeObject } from '../types.js';

export interface FieldRequirement {
  path: string[];
  value: string;
  equals: boolean;
}

export function parseFieldSelector(selector: string | undefined | null): FieldRequirement[] {
  if (!selector) return [];
  return selector
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '')
    .map((part) => {
      const match = /^([^!=]+?)\s*(==|=|!=)\s*(.*)$/.exec(part);
      if (!match) throw badRequest(`invalid selector: '${selector}'; can't understand '${part}'`);
      return { path: match[1]!.split('.'), equals: match[2] !== '!=', value: match[3]! };
    });
}

export function matchesFields(requirements: FieldRequirement[], obj: KubeObject): boolean {
  return requirements.every(
    (requirement) => (fieldValue(obj, requirement.path) === requirement.value) === requirement.equals,
  );
}

/** Missing fields compare as the empty string, like an unset string field in the real API. */
function fieldValue(obj: KubeObject, path: string[]): string {
  let current: unknown = obj;
  for (const segment of path) {
    if (typeof current !== 'object' || current === null) return '';
    current = (current as Record<string, unknown>)[segment];
  }
  if (current === undefined || current === null) return '';
  return typeof current === 'object' ? JSON.stringify(current) : String(current);
}
