// Discovery documents, in both formats kubectl understands:
// - aggregated (apidiscovery.k8s.io v2, or v2beta1 which kubectl ≤1.29 asks for): one request
//   to /api and one to /apis describe everything;
// - legacy (APIVersions / APIGroupList / APIResourceList): what clients get when they ask for
//   plain application/json, followed by one request per group version.

import { RESOURCE_TYPES, type ResourceType } from '../kinds.js';
import { acceptedMediaTypeParams } from './mediaTypes.js';

const ALL_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

export type AggregatedVersion = 'v2' | 'v2beta1';

/** The aggregated discovery version the Accept header asks for first, if any. */
export function negotiateAggregatedDiscovery(accept: string | undefined): AggregatedVersion | undefined {
  for (const params of acceptedMediaTypeParams(accept)) {
    if (params.get('g') !== 'apidiscovery.k8s.io' || params.get('as') !== 'APIGroupDiscoveryList') continue;
    const version = params.get('v');
    if (version === 'v2' || version === 'v2beta1') return version;
  }
  return undefined;
}

export function aggregatedContentType(version: AggregatedVersion): string {
  return `application/json;g=apidiscovery.k8s.io;v=${version};as=APIGroupDiscoveryList`;
}

/** `legacyCore` = the /api document (core group only); otherwise /apis (every named group). */
export function aggregatedDiscovery(version: AggregatedVersion, legacyCore: boolean): object {
  const items = groupNames()
    .filter((group) => (group === '') === legacyCore)
    .map((group) => ({
      metadata: { name: group, creationTimestamp: null },
      versions: versionsOf(group).map((version) => ({
        version,
        freshness: 'Current',
        resources: typesIn(group, version).map((type) => ({
          resource: type.plural,
          singularResource: type.singular,
          responseKind: { group: type.group, version: type.version, kind: type.kind },
          scope: type.namespaced ? 'Namespaced' : 'Cluster',
          verbs: verbsFor(type),
          ...(type.shortNames.length > 0 ? { shortNames: type.shortNames } : {}),
          ...(type.categories.length > 0 ? { categories: type.categories } : {}),
          subresources: type.subresources.map((subresource) => ({
            subresource,
            responseKind: subresourceKind(type, subresource),
            verbs: subresourceVerbs(subresource),
          })),
        })),
      })),
    }));
  return { kind: 'APIGroupDiscoveryList', apiVersion: `apidiscovery.k8s.io/${version}`, metadata: {}, items };
}

export function legacyApiVersions(serverAddress: string): object {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

export function legacyGroupList(): object {
  return {
    kind: 'APIGroupList',
    apiVersion: 'v1',
    groups: groupNames()
      .filter((group) => group !== '')
      .map(legacyGroup),
  };
}

export function legacyGroup(group: string): object {
  const versions = versionsOf(group).map((version) => ({ groupVersion: `${group}/${version}`, version }));
  return { kind: 'APIGroup', apiVersion: 'v1', name: group, versions, preferredVersion: versions[0] };
}

export function isKnownGroup(group: string): boolean {
  return groupNames().includes(group);
}

export function isKnownGroupVersion(group: string, version: string): boolean {
  return isKnownGroup(group) && versionsOf(group).includes(version);
}

export function legacyResourceList(group: string, version = versionsOf(group)[0] ?? 'v1'): object {
  const resources = typesIn(group, version).flatMap((type) => [
    {
      name: type.plural,
      singularName: type.singular,
      namespaced: type.namespaced,
      kind: type.kind,
      verbs: verbsFor(type),
      ...(type.shortNames.length > 0 ? { shortNames: type.shortNames } : {}),
      ...(type.categories.length > 0 ? { categories: type.categories } : {}),
    },
    ...type.subresources.map((subresource) => {
      const kind = subresourceKind(type, subresource);
      return {
        name: `${type.plural}/${subresource}`,
        singularName: '',
        namespaced: type.namespaced,
        ...(kind.group !== type.group ? { group: kind.group, version: kind.version } : {}),
        kind: kind.kind,
        verbs: subresourceVerbs(subresource),
      };
    }),
  ]);
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: group === '' ? 'v1' : `${group}/${version}`,
    resources,
  };
}

function groupNames(): string[] {
  return [...new Set(RESOURCE_TYPES.map((type) => type.group))];
}

/**
 * The versions a group is served in, the preferred one first: one for each built-in group
 * (autoscaling: v2, the rest: v1); a custom group serves each version its CRDs serve (one CRD's
 * storage version each, server/crds.ts), as cert-manager.io v1 beside an older CRD's v1alpha2.
 */
function versionsOf(group: string): string[] {
  const versions = [...new Set(RESOURCE_TYPES.filter((type) => type.group === group).map((type) => type.version))];
  return versions.length > 0 ? versions : ['v1'];
}

function typesIn(group: string, version: string): ResourceType[] {
  return RESOURCE_TYPES.filter((type) => type.group === group && type.version === version);
}

function verbsFor(type: ResourceType): string[] {
  if (type.verbs) return type.verbs;
  // Namespaces cannot be deleted as a collection in the real API either.
  return type.kind === 'Namespace' ? ALL_VERBS.filter((verb) => verb !== 'deletecollection') : ALL_VERBS;
}

function subresourceKind(type: ResourceType, subresource: string): { group: string; version: string; kind: string } {
  if (subresource === 'scale') return { group: 'autoscaling', version: 'v1', kind: 'Scale' };
  return { group: type.group, version: type.version, kind: type.kind };
}

function subresourceVerbs(subresource: string): string[] {
  return subresource === 'log' ? ['get'] : ['get', 'patch', 'update'];
}
