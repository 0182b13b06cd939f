// The JSON Schema of a fleet file (kguard apply --fleet FILE), shipped as schema/fleet.schema.json
// (a test keeps the two equal). Data only.
const contextName = {
  type: 'string',
  minLength: 1,
  pattern: '^[^,\\s]+$',
  description: 'A context of the kubeconfig.',
};

const contextWithOverrides = {
  type: 'object',
  description: 'A context with what differs for it.',
  required: ['context'],
  additionalProperties: false,
  properties: {
    context: contextName,
    namespace: {
      type: 'string',
      pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$',
      maxLength: 63,
      description: 'The namespace for objects that name none (as -n), in this cluster.',
    },
    kubeconfig: {
      type: 'string',
      minLength: 1,
      description: 'The kubeconfig file this context is read from (as --kubeconfig).',
    },
    kubectlArgs: {
      type: 'array',
      items: { type: 'string', minLength: 1 },
      description:
        'More kubectl flags for this cluster, as after --: connection flags (--as, --server…) reach every kubectl call, the others the apply.',
    },
  },
};

export const FLEET_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'https://github.com/kguard-dev/kguard/schema/fleet.schema.json',
  title: 'kguard fleet',
  description: 'The waves of kubeconfig contexts a fleet apply goes through, in order (kguard apply --fleet FILE).',
  type: 'object',
  required: ['waves'],
  additionalProperties: false,
  properties: {
    $schema: { type: 'string' },
    waves: {
      type: 'array',
      minItems: 1,
      description: 'In order: a wave starts when every cluster of the one before it is healthy and baked.',
      items: {
        type: 'object',
        required: ['contexts'],
        additionalProperties: false,
        properties: {
          contexts: {
            type: 'array',
            minItems: 1,
            description: 'The clusters of the wave: a context name, or an object with the context and its overrides.',
            items: { anyOf: [contextName, contextWithOverrides] },
          },
          parallel: {
            type: 'integer',
            minimum: 1,
            description: "How many of the wave's clusters run at once (default: all).",
          },
          bake: {
            type: 'string',
            pattern: '^(\\d+(\\.\\d+)?(ms|s|m|h))+$',
            description:
              'After healthy, each cluster of the wave keeps being watched this long (as --bake, e.g. 5m) before the wave ends.',
          },
        },
      },
    },
  },
} as const;
