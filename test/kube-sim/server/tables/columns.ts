// The columns `kubectl get` shows for each kind, as the real API server's printers define them
// (pkg/printers/internalversion/printers.go). Priority 1 columns appear only with `-o wide`.
// Every row carries all cells; kubectl drops the wide ones itself.

import { labelSelectorToString, type LabelSelectorObject } from '../../selectors.js';
import type { KubeObject } from '../../types.js';
import { CROWD_PRINTERS } from './crowdColumns.js';
import { ageOf } from './duration.js';
import { AGE, NAME, column, integer, wide, type Printer } from './printer.js';
import { podCells } from './podStatus.js';

export type { ColumnDefinition } from './printer.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const DEFAULT_PRINTER: Printer = {
  columns: [NAME, AGE],
  cells: (obj, now) => [obj.metadata.name, ageOf(obj.metadata.creationTimestamp, now)],
};

const PRINTERS: Record<string, Printer> = {
  Pod: {
    columns: [
      NAME,
      column('Ready'),
      column('Status'),
      column('Restarts'),
      AGE,
      wide('IP'),
      wide('Node'),
      wide('Nominated Node'),
      wide('Readiness Gates'),
    ],
    cells(pod, now) {
      const { ready, status, restarts } = podCells(pod, now);
      return [
        pod.metadata.name,
        ready,
        status,
        restarts,
        ageOf(pod.metadata.creationTimestamp, now),
        pod.status?.podIP || '<none>',
        pod.spec?.nodeName || '<none>',
        pod.status?.nominatedNodeName || '<none>',
        '<none>',
      ];
    },
  },
  Deployment: {
    columns: [
      NAME,
      column('Ready'),
      integer('Up-to-date'),
      integer('Available'),
      AGE,
      wide('Containers'),
      wide('Images'),
      wide('Selector'),
    ],
    cells(obj, now) {
      const status = obj.status ?? {};
      return [
        obj.metadata.name,
        `${status.readyReplicas ?? 0}/${obj.spec?.replicas ?? 0}`,
        status.updatedReplicas ?? 0,
        status.availableReplicas ?? 0,
        ageOf(obj.metadata.creationTimestamp, now),
        ...templateCells(obj),
      ];
    },
  },
  ReplicaSet: {
    columns: [
      NAME,
      integer('Desired'),
      integer('Current'),
      integer('Ready'),
      AGE,
      wide('Containers'),
      wide('Images'),
      wide('Selector'),
    ],
    cells: (obj, now) => [
      obj.metadata.name,
      obj.spec?.replicas ?? 0,
      obj.status?.replicas ?? 0,
      obj.status?.readyReplicas ?? 0,
      ageOf(obj.metadata.creationTimestamp, now),
      ...templateCells(obj),
    ],
  },
  StatefulSet: {
    columns: [NAME, column('Ready'), AGE, wide('Containers'), wide('Images')],
    cells: (obj, now) => [
      obj.metadata.name,
      `${obj.status?.readyReplicas ?? 0}/${obj.spec?.replicas ?? 0}`,
      ageOf(obj.metadata.creationTimestamp, now),
      ...templateCells(obj).slice(0, 2),
    ],
  },
  DaemonSet: {
    columns: [
      NAME,
      integer('Desired'),
      integer('Current'),
      integer('Ready'),
      integer('Up-to-date'),
      integer('Available'),
      column('Node Selector'),
      AGE,
      wide('Containers'),
      wide('Images'),
      wide('Selector'),
    ],
    cells(obj, now) {
      const status = obj.status ?? {};
      return [
        obj.metadata.name,
        status.desiredNumberScheduled ?? 0,
        status.currentNumberScheduled ?? 0,
        status.numberReady ?? 0,
        status.updatedNumberScheduled ?? 0,
        status.numberAvailable ?? 0,
        mapText(obj.spec?.template?.spec?.nodeSelector),
        ageOf(obj.metadata.creationTimestamp, now),
        ...templateCells(obj),
      ];
    },
  },
  Service: {
    columns: [
      NAME,
      column('Type'),
      column('Cluster-IP'),
      column('External-IP'),
      column('Port(s)'),
      AGE,
      wide('Selector'),
    ],
    cells(obj, now) {
      const spec: Json = obj.spec ?? {};
      const ports = ((spec.ports ?? []) as Json[]).map((port) =>
        port.nodePort
          ? `${port.port}:${port.nodePort}/${port.protocol ?? 'TCP'}`
          : `${port.port}/${port.protocol ?? 'TCP'}`,
      );
      return [
        obj.metadata.name,
        spec.type ?? 'ClusterIP',
        spec.clusterIP || '<none>',
        externalIp(obj),
        ports.join(',') || '<none>',
        ageOf(obj.metadata.creationTimestamp, now),
        mapText(spec.selector),
      ];
    },
  },
  Event: {
    columns: [
      column('Last Seen'),
      column('Type'),
      column('Reason'),
      column('Object'),
      wide('Subobject'),
      wide('Source'),
      column('Message'),
      wide('First Seen'),
      column('Count', { type: 'integer', wide: true }),
      column('Name', { wide: true }),
    ],
    cells(event, now) {
      const involved: Json = event['involvedObject'] ?? {};
      const firstSeen = ageOf(event['firstTimestamp'] ?? event['eventTime'] ?? event.metadata.creationTimestamp, now);
      const series = event['series'] as Json | undefined;
      const lastSeen = series?.lastObservedTime
        ? ageOf(series.lastObservedTime, now)
        : event['lastTimestamp']
          ? ageOf(event['lastTimestamp'], now)
          : firstSeen;
      const count = (series?.count ?? event['count'] ?? 1) as number;
      const source = event['source'] as Json | undefined;
      return [
        lastSeen,
        String(event['type'] ?? ''),
        String(event['reason'] ?? ''),
        involved.name
          ? `${String(involved.kind ?? '').toLowerCase()}/${involved.name}`
          : String(involved.kind ?? '').toLowerCase(),
        involved.fieldPath ?? '',
        source?.component
          ? [source.component, source.host].filter(Boolean).join(', ')
          : String(event['reportingComponent'] ?? ''),
        String(event['message'] ?? '').trim(),
        firstSeen,
        count,
        event.metadata.name,
      ];
    },
  },
  Namespace: {
    columns: [NAME, column('Status'), AGE],
    cells: (obj, now) => [obj.metadata.name, obj.status?.phase ?? 'Active', ageOf(obj.metadata.creationTimestamp, now)],
  },
  Node: {
    columns: [
      NAME,
      column('Status'),
      column('Roles'),
      AGE,
      column('Version'),
      wide('Internal-IP'),
      wide('External-IP'),
      wide('OS-Image'),
      wide('Kernel-Version'),
      wide('Container-Runtime'),
    ],
    cells(node, now) {
      const ready = ((node.status?.conditions ?? []) as Json[]).find((condition) => condition.type === 'Ready');
      const state = ready?.status === 'True' ? 'Ready' : ready?.status === 'False' ? 'NotReady' : 'Unknown';
      const roles = Object.keys(node.metadata.labels ?? {})
        .filter((label) => label.startsWith('node-role.kubernetes.io/'))
        .map((label) => label.slice('node-role.kubernetes.io/'.length));
      const addresses = (node.status?.addresses ?? []) as Json[];
      const info: Json = node.status?.nodeInfo ?? {};
      return [
        node.metadata.name,
        node.spec?.unschedulable ? `${state},SchedulingDisabled` : state,
        roles.join(',') || '<none>',
        ageOf(node.metadata.creationTimestamp, now),
        info.kubeletVersion ?? '',
        addresses.find((address) => address.type === 'InternalIP')?.address ?? '<none>',
        addresses.find((address) => address.type === 'ExternalIP')?.address ?? '<none>',
        info.osImage ?? '<unknown>',
        info.kernelVersion ?? '<unknown>',
        info.containerRuntimeVersion ?? '<unknown>',
      ];
    },
  },
  ConfigMap: {
    columns: [NAME, integer('Data'), AGE],
    cells: (obj, now) => [
      obj.metadata.name,
      Object.keys(obj['data'] ?? {}).length + Object.keys(obj['binaryData'] ?? {}).length,
      ageOf(obj.metadata.creationTimestamp, now),
    ],
  },
  Secret: {
    columns: [NAME, column('Type'), integer('Data'), AGE],
    cells: (obj, now) => [
      obj.metadata.name,
      String(obj['type'] ?? 'Opaque'),
      Object.keys(obj['data'] ?? {}).length,
      ageOf(obj.metadata.creationTimestamp, now),
    ],
  },
  ResourceQuota: {
    columns: [NAME, AGE, column('Request'), column('Limit')],
    cells(obj, now) {
      const hard: Record<string, string> = obj.status?.hard ?? obj.spec?.hard ?? {};
      const used: Record<string, string> = obj.status?.used ?? {};
      const usage = (keys: string[]): string =>
        keys.map((key) => `${key}: ${used[key] ?? '0'}/${hard[key]}`).join(', ');
      const keys = Object.keys(hard).sort();
      return [
        obj.metadata.name,
        ageOf(obj.metadata.creationTimestamp, now),
        usage(keys.filter((key) => !key.startsWith('limits.'))),
        usage(keys.filter((key) => key.startsWith('limits.'))),
      ];
    },
  },
};

export function printerFor(kind: string): Printer {
  return PRINTERS[kind] ?? CROWD_PRINTERS[kind] ?? DEFAULT_PRINTER;
}

/** Containers, Images and Selector cells of a workload. */
function templateCells(obj: KubeObject): string[] {
  const containers = (obj.spec?.template?.spec?.containers ?? []) as Json[];
  return [
    containers.map((container) => container.name).join(','),
    containers.map((container) => container.image).join(','),
    selectorText(obj.spec?.selector),
  ];
}

function selectorText(selector: LabelSelectorObject | undefined): string {
  return labelSelectorToString(selector) || '<none>';
}

function mapText(map: Record<string, string> | undefined): string {
  const entries = Object.entries(map ?? {});
  return entries.length === 0 ? '<none>' : entries.map(([key, value]) => `${key}=${value}`).join(',');
}

function externalIp(service: KubeObject): string {
  const spec: Json = service.spec ?? {};
  const external = (spec.externalIPs ?? []) as string[];
  if (spec.type === 'LoadBalancer') {
    const ingress = ((service.status?.loadBalancer?.ingress ?? []) as Json[]).map(
      (entry) => entry.ip ?? entry.hostname,
    );
    const all = [...ingress, ...external];
    return all.length > 0 ? all.join(',') : '<pending>';
  }
  if (spec.type === 'ExternalName') return spec.externalName ?? '<none>';
  return external.length > 0 ? external.join(',') : '<none>';
}
