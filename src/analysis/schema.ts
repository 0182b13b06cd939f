// The JSON Schema of an --analysis file (model/analysis.ts), shipped as schema/analysis.schema.json
// (a test keeps the two equal). Data only.
const duration = {
  oneOf: [
    { type: 'string', pattern: '^(\\d+(\\.\\d+)?(ms|s|m|h))+$' },
    { type: 'number', exclusiveMinimum: 0, description: 'Seconds.' },
  ],
};

const secret = {
  oneOf: [
    {
      type: 'object',
      required: ['file'],
      additionalProperties: false,
      properties: { file: { type: 'string', minLength: 1, description: 'A file holding it (relative to this file).' } },
    },
    {
      type: 'object',
      required: ['env'],
      additionalProperties: false,
      properties: { env: { type: 'string', minLength: 1, description: 'An environment variable holding it.' } },
    },
  ],
};

export const ANALYSIS_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'urn:kguard:analysis:1',
  title: 'kguard --analysis file',
  description:
    'Prometheus queries that judge a release during --bake (once after the rollout without one). A failing metric restores the whole apply (exit 3); one that cannot be judged ends the run for a person (exit 4). See docs/analysis.md.',
  type: 'object',
  required: ['prometheus', 'metrics'],
  additionalProperties: false,
  properties: {
    prometheus: {
      type: 'object',
      required: ['address'],
      additionalProperties: false,
      description: "The Prometheus server (Argo Rollouts' provider.prometheus, PipeCD's analysisProviders).",
      properties: {
        address: {
          type: 'string',
          pattern: '^https?://[^@/]+(/.*)?$',
          description: 'Its base URL, http or https, without a user or password (give basicAuth).',
        },
        timeout: { ...duration, description: "Each request's deadline (default 10s)." },
        bearerToken: { ...secret, description: 'Sent as Authorization: Bearer.' },
        basicAuth: {
          type: 'object',
          required: ['username', 'password'],
          additionalProperties: false,
          properties: { username: { type: 'string', minLength: 1 }, password: secret },
        },
        tls: {
          type: 'object',
          additionalProperties: false,
          properties: {
            caFile: {
              type: 'string',
              minLength: 1,
              description: "A PEM file of the CA that signed Prometheus's certificate (relative to this file).",
            },
          },
        },
      },
    },
    metrics: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        required: ['name', 'query', 'interval'],
        additionalProperties: false,
        properties: {
          name: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]*$', maxLength: 63 },
          query: {
            type: 'string',
            minLength: 1,
            description:
              'PromQL returning one value (or several series, each judged). Variables: {{ namespace }}, {{ workload }}, {{ workloads }}, {{ interval }}, {{ since }}, {{ appliedAt }}, {{ runId }}.',
          },
          interval: { ...duration, description: 'Time between evaluations.' },
          count: {
            type: 'integer',
            minimum: 1,
            description: 'How many evaluations (default: every interval until the bake ends).',
          },
          initialDelay: { ...duration, description: 'Before the first evaluation (default 0).' },
          failureLimit: {
            type: 'integer',
            minimum: 0,
            description: 'Failed evaluations tolerated; one more fails the metric (default 0).',
          },
          inconclusiveLimit: {
            type: 'integer',
            minimum: 0,
            description:
              'Inconclusive evaluations tolerated (Prometheus unreachable, an error); one more ends the run for a person (default 0).',
          },
          noData: {
            enum: ['fail', 'pass', 'inconclusive'],
            description: 'What an empty answer (or NaN) means (default inconclusive).',
          },
          threshold: {
            type: 'object',
            additionalProperties: false,
            minProperties: 1,
            description: 'The value must stay within min and max.',
            properties: { min: { type: 'number' }, max: { type: 'number' } },
          },
          previous: {
            type: 'object',
            additionalProperties: false,
            required: ['deviation'],
            description:
              "The value compared with the same query at the apply's moment: it may move toward `deviation` by at most tolerance (a fraction of the value before) plus margin.",
            properties: {
              deviation: { enum: ['higher', 'lower', 'either'] },
              tolerance: { type: 'number', minimum: 0, description: 'Default 0.' },
              margin: { type: 'number', minimum: 0, description: 'Default 0.' },
            },
          },
        },
        oneOf: [{ required: ['threshold'] }, { required: ['previous'] }],
      },
    },
  },
} as const;
