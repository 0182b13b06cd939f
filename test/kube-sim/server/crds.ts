// CustomResourceDefinitions, as far as kubectl and kguard need them: creating one serves its kind
// (discovery, OpenAPI, REST, watch), as kube-apiserver's apiextensions half does, and its status
// says NamesAccepted and Established (the naming and establishing controllers,
// apiextensions-apiserver pkg/controller/status and establish); deleting it removes the kind and
// every object of it. One version is served: the storage version. Schemas, conversion, printer
// columns and validation of the custom objects are not simulated.

import type { SimClock } from '../clock.js';
import { registerResourceType, unregisterResourceType, type ResourceType } from '../kinds.js';
import type { Store } from '../store.js';
import type { KubeObject } from '../types.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** How long the establishing controller takes, in simulated ms. */
const ESTABLISH_MS = 100;

export interface CustomResourceServing {
  stop(): void;
}

export function serveCustomResourceDefinitions(store: Store, clock: SimClock): CustomResourceServing {
  const served = new Map<string, ResourceType>();
  const cancels = new Set<() => void>();
  // Writes wait for the store to finish telling everyone about the change that caused them.
  const later = (ms: number, work: () => void) => {
    const cancel = clock.after(ms, () => {
      cancels.delete(cancel);
      work();
    });
    cancels.add(cancel);
  };

  // The kind is served (REST, discovery) once the CRD is Established, as kube-apiserver does: its
  // discovery controller skips CRDs that are not (apiextensions-apiserver
  // pkg/apiserver/customresource_discovery_controller.go, sync), so a client that applies a CRD and
  // an object of its kind at once is told `no matches for kind` (kubectl: "ensure CRDs are
  // installed first") until then.
  const serve = (crd: KubeObject) => {
    const type = resourceTypeOf(crd);
    if (!type) return;
    if (!isEstablished(crd)) {
      later(ESTABLISH_MS, () => establish(store, crd.metadata.name, clock.nowIso()));
      return;
    }
    registerResourceType(type);
    served.set(crd.metadata.name, type);
  };

  const unserve = (crd: KubeObject) => {
    const type = served.get(crd.metadata.name);
    if (!type) return;
    served.delete(crd.metadata.name);
    later(0, () => {
      for (const object of store.list(type.kind))
        store.delete(type.kind, object.metadata.namespace ?? '', object.metadata.name);
      unregisterResourceType(type.group, type.kind);
    });
  };

  for (const crd of store.list('CustomResourceDefinition')) serve(crd);
  const unsubscribe = store.subscribe(({ type, object }) => {
    if (object.kind !== 'CustomResourceDefinition') return;
    if (type === 'DELETED') unserve(object);
    else serve(object);
  });
  return {
    stop() {
      unsubscribe();
      for (const cancel of cancels) cancel();
      for (const type of served.values()) unregisterResourceType(type.group, type.kind);
      served.clear();
    },
  };
}

/** The served type a CRD describes, from its storage version (or its first one). */
export function resourceTypeOf(crd: KubeObject): ResourceType | undefined {
  const spec: Json = crd.spec ?? {};
  const names: Json = spec.names ?? {};
  const versions = (spec.versions ?? []) as Json[];
  const version = versions.find((candidate) => candidate.storage) ?? versions[0];
  if (!spec.group || !names.kind || !names.plural || !version?.name) return undefined;
  return {
    kind: names.kind,
    group: spec.group,
    version: version.name,
    plural: names.plural,
    singular: names.singular ?? String(names.kind).toLowerCase(),
    namespaced: spec.scope !== 'Cluster',
    shortNames: names.shortNames ?? [],
    subresources: version.subresources?.status ? ['status'] : [],
    hasGeneration: true,
    categories: names.categories ?? [],
    custom: true,
  };
}

function isEstablished(crd: KubeObject): boolean {
  return ((crd.status?.conditions ?? []) as Json[]).some(
    (condition) => condition.type === 'Established' && condition.status === 'True',
  );
}

/** NamesAccepted (NoConflicts) and Established (InitialNamesAccepted), with the accepted names and stored version. */
function establish(store: Store, name: string, now: string): void {
  const crd = store.get('CustomResourceDefinition', '', name);
  const type = crd && resourceTypeOf(crd);
  if (!crd || !type || isEstablished(crd)) return;
  const names: Json = crd.spec?.names ?? {};
  const acceptedNames: Json = {
    kind: names.kind,
    listKind: names.listKind ?? `${names.kind}List`,
    plural: names.plural,
    singular: type.singular,
  };
  if (names.shortNames) acceptedNames.shortNames = names.shortNames;
  if (names.categories) acceptedNames.categories = names.categories;
  const condition = (conditionType: string, reason: string, message: string) => ({
    lastTransitionTime: now,
    message,
    reason,
    status: 'True',
    type: conditionType,
  });
  store.updateStatus({
    ...crd,
    metadata: { ...crd.metadata, resourceVersion: undefined },
    status: {
      acceptedNames,
      conditions: [
        condition('NamesAccepted', 'NoConflicts', 'no conflicts found'),
        condition('Established', 'InitialNamesAccepted', 'the initial names have been accepted'),
      ],
      storedVersions: [type.version],
    },
  });
}
