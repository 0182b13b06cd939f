// The kube-aggregator's side of the API server, for APIServices whose backend does not answer
// (scenario `apiServices`, e.g. v1beta1.metrics.k8s.io with metrics-server down):
// - aggregated discovery (handler_discovery.go): the group version is listed with
//   `freshness: Stale` and no resources, which client-go reports as `stale GroupVersion
//   discovery: <gv>`;
// - legacy discovery lists the group in /apis and /apis/<group>, and every request under
//   /apis/<group>/<version> is answered by the proxy handler (handler_proxy.go) with
//   `http.Error(w, "service unavailable", 503)`, which client-go turns into `the server is
//   currently unable to handle the request`;
// - the APIService object says Available False, MissingEndpoints (available_controller.go).
// `aggregatedDiscovery: false` makes /api and /apis answer only the legacy documents, as an API
// server before 1.27 (or a proxy that drops the Accept parameters) does.

import type { ServerResponse } from 'node:http';
import type { AggregatedApiService } from '../scenario-crowd.js';
import type { Store } from '../store.js';

export interface UnavailableGroupVersion {
  group: string;
  version: string;
  apiService: AggregatedApiService;
}

export function unavailableGroupVersions(apiServices: AggregatedApiService[]): UnavailableGroupVersion[] {
  return apiServices.map((apiService) => {
    const dot = apiService.name.indexOf('.');
    return { version: apiService.name.slice(0, dot), group: apiService.name.slice(dot + 1), apiService };
  });
}

/** The aggregated discovery entries of the /apis document for them. */
export function staleDiscoveryItems(unavailable: UnavailableGroupVersion[]): object[] {
  const groups = [...new Set(unavailable.map((entry) => entry.group))];
  return groups.map((group) => ({
    metadata: { name: group, creationTimestamp: null },
    versions: unavailable
      .filter((entry) => entry.group === group)
      .map((entry) => ({ version: entry.version, freshness: 'Stale' })),
  }));
}

/** The APIGroup documents of the legacy /apis list and /apis/<group>. */
export function legacyAggregatedGroups(unavailable: UnavailableGroupVersion[]): object[] {
  const groups = [...new Set(unavailable.map((entry) => entry.group))];
  return groups.map((group) => {
    const versions = unavailable
      .filter((entry) => entry.group === group)
      .map((entry) => ({ groupVersion: `${group}/${entry.version}`, version: entry.version }));
    return { kind: 'APIGroup', apiVersion: 'v1', name: group, versions, preferredVersion: versions[0] };
  });
}

/** Whether a path is served by one of these APIServices' (absent) backends. */
export function servedByUnavailable(pathname: string, unavailable: UnavailableGroupVersion[]): boolean {
  return unavailable.some(
    (entry) =>
      pathname === `/apis/${entry.group}/${entry.version}` ||
      pathname.startsWith(`/apis/${entry.group}/${entry.version}/`),
  );
}

/** handler_proxy.go proxyError → http.Error: a plain-text body, not a Status. */
export function sendServiceUnavailable(res: ServerResponse): void {
  const body = 'service unavailable\n';
  res.writeHead(503, {
    'Content-Type': 'text/plain; charset=utf-8',
    'X-Content-Type-Options': 'nosniff',
    'Content-Length': Buffer.byteLength(body),
  });
  res.end(body);
}

/** The APIService objects, as the available controller leaves them when no endpoint answers. */
export function registerApiServices(store: Store, unavailable: UnavailableGroupVersion[], nowIso: string): void {
  for (const { group, version, apiService } of unavailable) {
    if (store.get('APIService', '', apiService.name)) continue;
    const service = apiService.service ?? { namespace: 'kube-system', name: `${group.split('.')[0]}-apiserver` };
    store.create({
      apiVersion: 'apiregistration.k8s.io/v1',
      kind: 'APIService',
      metadata: { name: apiService.name },
      spec: {
        group,
        version,
        groupPriorityMinimum: 100,
        versionPriority: 100,
        insecureSkipTLSVerify: true,
        service: { ...service, port: 443 },
      },
      status: {
        conditions: [
          {
            type: 'Available',
            status: 'False',
            lastTransitionTime: nowIso,
            reason: 'MissingEndpoints',
            message: `endpoints for service/${service.name} in "${service.namespace}" have no addresses with port name "https"`,
          },
        ],
      },
    });
  }
}
