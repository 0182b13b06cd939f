// Label selectors in both forms the API uses: the query-string syntax (`app=web,tier!=db`,
// `env in (a,b)`, `!canary`) and the object form in specs ({matchLabels, matchExpressions}).

import { badRequest } from './errors.js';

type Labels = Record<string, string> | undefined;

export type Requirement =
  | { key: string; operator: 'In' | 'NotIn'; values: string[] }
  | { key: string; operator: 'Exists' | 'DoesNotExist' };

export interface LabelSelectorObject {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}

/** Parses the query-string syntax. An empty string selects everything. Throws 400 when malformed. */
export function parseLabelSelector(selector: string): Requirement[] {
  return splitTopLevel(selector).map(parseRequirement);
}

export function matchesRequirements(requirements: Requirement[], labels: Labels): boolean {
  return requirements.every((requirement) => matchesRequirement(requirement, labels ?? {}));
}

export function matchesLabelSelectorString(selector: string | undefined, labels: Labels): boolean {
  if (!selector) return true;
  return matchesRequirements(parseLabelSelector(selector), labels);
}

/** The object form. Like the API, an empty selector matches everything. */
export function matchesLabelSelector(selector: LabelSelectorObject | undefined, labels: Labels): boolean {
  if (!selector) return true;
  const requirements: Requirement[] = Object.entries(selector.matchLabels ?? {}).map(([key, value]) => ({
    key,
    operator: 'In',
    values: [value],
  }));
  for (const expression of selector.matchExpressions ?? []) {
    if (expression.operator === 'In' || expression.operator === 'NotIn') {
      requirements.push({ key: expression.key, operator: expression.operator, values: expression.values ?? [] });
    } else if (expression.operator === 'Exists' || expression.operator === 'DoesNotExist') {
      requirements.push({ key: expression.key, operator: expression.operator });
    } else {
      return false;
    }
  }
  return matchesRequirements(requirements, labels);
}

function matchesRequirement(requirement: Requirement, labels: Record<string, string>): boolean {
  const present = Object.hasOwn(labels, requirement.key);
  switch (requirement.operator) {
    case 'Exists':
      return present;
    case 'DoesNotExist':
      return !present;
    case 'In':
      return present && requirement.values.includes(labels[requirement.key]!);
    case 'NotIn':
      // As in apimachinery: a missing key satisfies `!=` and `notin`.
      return !present || !requirement.values.includes(labels[requirement.key]!);
  }
}

/** Splits on commas that are not inside `( … )`. */
function splitTopLevel(selector: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const char of selector) {
    if (char === '(') depth++;
    if (char === ')') depth--;
    if (char === ',' && depth === 0) {
      parts.push(current);
      current = '';
    } else {
      current += char;
    }
  }
  parts.push(current);
  return parts.map((part) => part.trim()).filter((part) => part !== '');
}

const SET_BASED = /^([^\s!=()]+)\s+(in|notin)\s+\(([^)]*)\)$/;
const EQUALITY = /^([^\s!=()]+)\s*(==|=|!=)\s*([^\s!=()]*)$/;
const EXISTS = /^(!?)\s*([^\s!=()]+)$/;

function parseRequirement(text: string): Requirement {
  const setBased = SET_BASED.exec(text);
  if (setBased) {
    const values = setBased[3]!
      .split(',')
      .map((value) => value.trim())
      .filter((value) => value !== '');
    return { key: setBased[1]!, operator: setBased[2] === 'in' ? 'In' : 'NotIn', values };
  }
  const equality = EQUALITY.exec(text);
  if (equality) {
    return { key: equality[1]!, operator: equality[2] === '!=' ? 'NotIn' : 'In', values: [equality[3]!] };
  }
  const exists = EXISTS.exec(text);
  if (exists) return { key: exists[2]!, operator: exists[1] === '!' ? 'DoesNotExist' : 'Exists' };
  throw badRequest(`unable to parse requirement: ${JSON.stringify(text)}`);
}

/** The query-string form of a spec selector (`app=web,tier in (a,b)`), as `kubectl get -o wide` shows it. */
export function labelSelectorToString(selector: LabelSelectorObject | undefined): string {
  const parts = Object.entries(selector?.matchLabels ?? {}).map(([key, value]) => `${key}=${value}`);
  for (const expression of selector?.matchExpressions ?? []) {
    const values = (expression.values ?? []).join(',');
    if (expression.operator === 'In') parts.push(`${expression.key} in (${values})`);
    if (expression.operator === 'NotIn') parts.push(`${expression.key} notin (${values})`);
    if (expression.operator === 'Exists') parts.push(expression.key);
    if (expression.operator === 'DoesNotExist') parts.push(`!${expression.key}`);
  }
  return parts.join(',');
}
