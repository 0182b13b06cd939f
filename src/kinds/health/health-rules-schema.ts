// The JSON Schema of a --health-rules file (model/health-rules.ts), shipped as
// schema/health-rules.schema.json (a test keeps the two equal). Data only.
const stringOrList = {
  oneOf: [
    { type: 'string', minLength: 1 },
    { type: 'array', items: { type: 'string', minLength: 1 }, minItems: 1 },
  ],
};

const conditionMatch = {
  type: 'object',
  description: 'A condition of status.conditions (or of every entry of the list at `each`).',
  required: ['condition'],
  additionalProperties: false,
  properties: {
    condition: { type: 'string', minLength: 1, description: 'The condition type, e.g. Ready.' },
    status: { ...stringOrList, description: 'True, False or Unknown (one of a list); default any.' },
    reason: { ...stringOrList, description: 'The condition reason (one of a list); default any.' },
    reasonNot: { ...stringOrList, description: 'The condition reason is none of these (one or a list).' },
    each: {
      type: 'string',
      pattern: '^[A-Za-z0-9_-]+(\\.[A-Za-z0-9_-]+)*$',
      description: 'A dotted path to a list whose entries hold their own conditions, e.g. status.parents.',
    },
    afterSeconds: {
      type: 'integer',
      minimum: 1,
      description: 'Only under failed: how long the match must last before it fails the rollout.',
    },
    unless: {
      type: 'object',
      description:
        'Only under failed: no failure while this condition of status.conditions matches (cert-manager: Ready False while Issuing True).',
      required: ['condition'],
      additionalProperties: false,
      properties: {
        condition: { type: 'string', minLength: 1 },
        status: { ...stringOrList },
        reason: { ...stringOrList },
      },
    },
  },
};

const fieldMatch = {
  type: 'object',
  description: 'A status field by dotted path.',
  required: ['field'],
  additionalProperties: false,
  properties: {
    field: { type: 'string', pattern: '^[A-Za-z0-9_-]+(\\.[A-Za-z0-9_-]+)*$', description: 'e.g. status.phase' },
    equals: {
      ...stringOrList,
      description: 'The value, compared as a string (one of a list); absent: the field is set.',
    },
    message: {
      type: 'string',
      pattern: '^[A-Za-z0-9_-]+(\\.[A-Za-z0-9_-]+)*$',
      description: 'Where the words are read, e.g. status.message.',
    },
    afterSeconds: {
      type: 'integer',
      minimum: 1,
      description: 'Only under failed: how long the match must last before it fails the rollout.',
    },
  },
};

const matchList = { type: 'array', items: { oneOf: [conditionMatch, fieldMatch] } };

export const HEALTH_RULES_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'https://github.com/kguard-dev/kguard/schema/health-rules.schema.json',
  title: 'kguard health rules',
  description:
    'For each group/kind, which conditions or status fields mean failed, progressing and healthy (kguard --health-rules FILE).',
  type: 'object',
  required: ['rules'],
  additionalProperties: false,
  properties: {
    $schema: { type: 'string' },
    rules: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'match', 'healthy'],
        additionalProperties: false,
        properties: {
          id: {
            type: 'string',
            minLength: 1,
            description: 'The rule name, "group/Kind" by convention; kguard.dev/health-rule picks it.',
          },
          match: {
            type: 'array',
            items: {
              type: 'object',
              required: ['group', 'kind'],
              additionalProperties: false,
              properties: {
                group: {
                  type: 'string',
                  description: 'The API group ("" for core); "*.example.io" matches every subgroup.',
                },
                kind: { type: 'string', minLength: 1, description: 'The kind, or "*" for every kind of the group.' },
              },
            },
          },
          source: { type: 'string', description: 'Where the rule comes from.' },
          observedGeneration: {
            type: 'boolean',
            description: 'Judge only once status.observedGeneration caught up (default true).',
          },
          applied: {
            ...matchList,
            description:
              'Any match: judged applied, not waited for (nothing reconciles it: Flux spec.suspend); checked first.',
          },
          failed: { ...matchList, description: 'Any match: the rollout failed.' },
          progressing: { ...matchList, description: 'Any match: still progressing.' },
          healthy: {
            ...matchList,
            description:
              'Every match: healthy. Empty: healthy once applied (a kind without a status, as a Crossplane ProviderConfig).',
          },
        },
      },
    },
  },
} as const;
