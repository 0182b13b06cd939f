import { describe, expect, it } from 'vitest';
import { expectShippedSchema, refusalOf } from '../input-files.js';
import { parseHealthRules } from '../../src/kinds/health/health-rules-file.js';
import { HEALTH_RULES_SCHEMA } from '../../src/kinds/health/health-rules-schema.js';
import { BUILT_IN_HEALTH_RULES } from '../../src/kinds/health/health-table.js';

const refusal = (text: string): string => refusalOf(() => parseHealthRules(text, 'rules.yaml'));

describe('parseHealthRules', () => {
  it('the shipped schema file is the one kguard validates with', () => {
    expectShippedSchema('health-rules.schema.json', HEALTH_RULES_SCHEMA);
  });

  it('the built-in table follows the schema', () => {
    expect(parseHealthRules(JSON.stringify({ rules: BUILT_IN_HEALTH_RULES }), 'built-in').rules).toHaveLength(
      BUILT_IN_HEALTH_RULES.length,
    );
  });

  it('reads YAML as well as JSON', () => {
    const yaml = [
      'rules:',
      '  - id: example.com/Widget',
      '    match: [{ group: example.com, kind: Widget }]',
      '    failed: [{ condition: Ready, status: "False", reason: [BadConfig], afterSeconds: 30 }]',
      '    healthy: [{ field: status.phase, equals: Running }]',
    ].join('\n');
    expect(parseHealthRules(yaml, 'rules.yaml').rules[0]?.failed?.[0]).toEqual({
      condition: 'Ready',
      status: 'False',
      reason: ['BadConfig'],
      afterSeconds: 30,
    });
  });

  it('refuses a rule without healthy, naming where', () => {
    expect(refusal('{"rules":[{"id":"a/B","match":[]}]}')).toBe(
      "--health-rules rules.yaml does not follow schema/health-rules.schema.json: /rules/0 must have required property 'healthy'.",
    );
  });

  it('refuses an unknown field (a typo is not silently ignored)', () => {
    expect(refusal('{"rules":[{"id":"a/B","match":[],"healthy":[{"condition":"Ready","staus":"True"}]}]}')).toContain(
      'unknown field "staus"',
    );
  });

  it('refuses two rules of the same id', () => {
    const rule = { id: 'a/B', match: [], healthy: [{ condition: 'Ready' }] };
    expect(refusal(JSON.stringify({ rules: [rule, rule] }))).toBe(
      '--health-rules rules.yaml: two rules are named "a/B"; give each rule its own id.',
    );
  });

  it('refuses text that is not JSON or YAML', () => {
    expect(refusal('rules: [')).toMatch(/^--health-rules rules\.yaml: not JSON or YAML/);
  });
});
