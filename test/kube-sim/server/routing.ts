// Turns a REST path into what it addresses. The API's URL layout:
//   /api/v1/{plural}[/{name}[/{subresource}]]                        cluster-scoped, or all namespaces
//   /api/v1/namespaces/{namespace}/{plural}[/{name}[/{subresource}]]  namespaced
//   /apis/{group}/{version}/...                                       same, for named groups

import { resourceTypeForPlural, type ResourceType } from '../kinds.js';

export interface ResourceRoute {
  type: ResourceType;
  /** undefined = every namespace (a list such as /api/v1/pods) or a cluster-scoped type. */
  namespace?: string;
  name?: string;
  subresource?: string;
}

export interface GroupVersionRoute {
  group: string;
  version: string;
}

/** /api/v1 or /apis/apps/v1 (legacy discovery of one group version). */
export function parseGroupVersionPath(pathname: string): GroupVersionRoute | undefined {
  const segments = splitPath(pathname);
  if (segments.length === 2 && segments[0] === 'api') return { group: '', version: segments[1]! };
  if (segments.length === 3 && segments[0] === 'apis') return { group: segments[1]!, version: segments[2]! };
  return undefined;
}

/** /apis/apps (legacy discovery of one group). */
export function parseGroupPath(pathname: string): string | undefined {
  const segments = splitPath(pathname);
  return segments.length === 2 && segments[0] === 'apis' ? segments[1] : undefined;
}

export function parseResourcePath(pathname: string): ResourceRoute | undefined {
  const segments = splitPath(pathname);
  let rest: string[];
  let group: string;
  let version: string;
  if (segments[0] === 'api' && segments.length >= 3) {
    [group, version, rest] = ['', segments[1]!, segments.slice(2)];
  } else if (segments[0] === 'apis' && segments.length >= 4) {
    [group, version, rest] = [segments[1]!, segments[2]!, segments.slice(3)];
  } else {
    return undefined;
  }

  // namespaces/{ns}/{plural}/... addresses something inside a namespace; namespaces/{name}[/status]
  // addresses the Namespace itself.
  if (rest[0] === 'namespaces' && rest.length >= 3) {
    const inner = resourceTypeForPlural(group, version, rest[2]!);
    if (inner?.namespaced) return build(inner, rest[1], rest.slice(3));
  }
  const type = resourceTypeForPlural(group, version, rest[0]!);
  if (!type) return undefined;
  return build(type, undefined, rest.slice(1));
}

function build(type: ResourceType, namespace: string | undefined, tail: string[]): ResourceRoute | undefined {
  if (tail.length > 2) return undefined;
  const [name, subresource] = tail;
  if (subresource !== undefined && !type.subresources.includes(subresource)) return undefined;
  return { type, namespace, name, subresource };
}

function splitPath(pathname: string): string[] {
  return pathname
    .split('/')
    .filter((segment) => segment !== '')
    .map((segment) => decodeURIComponent(segment));
}
