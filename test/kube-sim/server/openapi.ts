// Minimal OpenAPI v3. kubectl's default validation (fieldValidation=Strict, i.e. server-side)
// only checks that a PATCH operation for the object's GVK exists and accepts a `fieldValidation`
// parameter; without it, kubectl falls back to client-side validation and needs /openapi/v2,
// which this server does not serve. No schemas are needed.

import { createHash } from 'node:crypto';
import { RESOURCE_TYPES, type ResourceType } from '../kinds.js';

/** "api/v1" or "apis/apps/v1", the keys of the OpenAPI v3 root document. */
function groupVersionKey(type: ResourceType): string {
  return type.group === '' ? `api/${type.version}` : `apis/${type.group}/${type.version}`;
}

/** One document per group version, from the types served now (custom resources come and go). */
function documents(): Map<string, object> {
  const byKey = new Map<string, object>();
  for (const key of new Set(RESOURCE_TYPES.map(groupVersionKey))) {
    byKey.set(key, groupVersionDocument(RESOURCE_TYPES.filter((type) => groupVersionKey(type) === key)));
  }
  return byKey;
}

export function openApiRoot(): object {
  const paths: Record<string, { serverRelativeURL: string }> = {};
  for (const [key, document] of documents()) {
    // The hash lets kubectl's HTTP cache keep a per-GV document until it changes.
    const hash = createHash('sha512').update(JSON.stringify(document)).digest('hex').slice(0, 32).toUpperCase();
    paths[key] = { serverRelativeURL: `/openapi/v3/${key}?hash=${hash}` };
  }
  return { paths };
}

/** The document for "/openapi/v3/apis/apps/v1" etc., or undefined for unknown paths. */
export function openApiDocument(pathname: string): object | undefined {
  return documents().get(pathname.replace(/^\/openapi\/v3\//, ''));
}

function groupVersionDocument(types: ResourceType[]): object {
  const paths: Record<string, object> = {};
  for (const type of types) {
    const prefix = type.group === '' ? `/api/${type.version}` : `/apis/${type.group}/${type.version}`;
    const scope = type.namespaced ? '/namespaces/{namespace}' : '';
    paths[`${prefix}${scope}/${type.plural}/{name}`] = {
      patch: {
        operationId: `patch${type.kind}`,
        'x-kubernetes-action': 'patch',
        'x-kubernetes-group-version-kind': { group: type.group, version: type.version, kind: type.kind },
        parameters: [
          { name: 'dryRun', in: 'query', schema: { type: 'string', uniqueItems: true } },
          { name: 'fieldManager', in: 'query', schema: { type: 'string', uniqueItems: true } },
          { name: 'fieldValidation', in: 'query', schema: { type: 'string', uniqueItems: true } },
          { name: 'force', in: 'query', schema: { type: 'boolean', uniqueItems: true } },
        ],
        responses: { '200': { description: 'OK' } },
      },
    };
  }
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: 'v1.32.0' },
    paths,
    components: { schemas: {} },
  };
}
