// Columns for the kinds the crowd acts on (pkg/printers/internalversion/printers.go:
// printPersistentVolumeClaim, printPersistentVolume, printStorageClass,
// printHorizontalPodAutoscaler, printAPIService, printIngress, printIngressClass).

import type { KubeObject } from '../../types.js';
import { ageOf } from './duration.js';
import { AGE, NAME, column, integer, wide, type Printer } from './printer.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** helper.GetAccessModesAsString */
function accessModes(modes: string[] | undefined): string {
  const short: Record<string, string> = {
    ReadWriteOnce: 'RWO',
    ReadOnlyMany: 'ROX',
    ReadWriteMany: 'RWX',
    ReadWriteOncePod: 'RWOP',
  };
  return (modes ?? []).map((mode) => short[mode] ?? mode).join(',');
}

const terminatingOr = (obj: KubeObject, phase: string): string =>
  obj.metadata.deletionTimestamp ? 'Terminating' : phase;

export const CROWD_PRINTERS: Record<string, Printer> = {
  PersistentVolumeClaim: {
    columns: [
      NAME,
      column('Status'),
      column('Volume'),
      column('Capacity'),
      column('Access Modes'),
      column('StorageClass'),
      column('VolumeAttributesClass'),
      AGE,
      wide('VolumeMode'),
    ],
    cells(obj, now) {
      const bound = Boolean(obj.spec?.volumeName);
      return [
        obj.metadata.name,
        terminatingOr(obj, obj.status?.phase ?? ''),
        obj.spec?.volumeName ?? '',
        bound ? (obj.status?.capacity?.storage ?? '') : '',
        bound ? accessModes(obj.status?.accessModes) : '',
        obj.spec?.storageClassName ?? '',
        obj.spec?.volumeAttributesClassName ?? '<unset>',
        ageOf(obj.metadata.creationTimestamp, now),
        obj.spec?.volumeMode ?? '<unset>',
      ];
    },
  },
  PersistentVolume: {
    columns: [
      NAME,
      column('Capacity'),
      column('Access Modes'),
      column('Reclaim Policy'),
      column('Status'),
      column('Claim'),
      column('StorageClass'),
      column('VolumeAttributesClass'),
      column('Reason'),
      AGE,
      wide('VolumeMode'),
    ],
    cells(obj, now) {
      const claim = obj.spec?.claimRef ? `${obj.spec.claimRef.namespace}/${obj.spec.claimRef.name}` : '';
      return [
        obj.metadata.name,
        obj.spec?.capacity?.storage ?? '',
        accessModes(obj.spec?.accessModes),
        obj.spec?.persistentVolumeReclaimPolicy ?? '',
        terminatingOr(obj, obj.status?.phase ?? ''),
        claim,
        obj.spec?.storageClassName ?? '',
        obj.spec?.volumeAttributesClassName ?? '<unset>',
        obj.status?.reason ?? '',
        ageOf(obj.metadata.creationTimestamp, now),
        obj.spec?.volumeMode ?? '<unset>',
      ];
    },
  },
  StorageClass: {
    columns: [
      NAME,
      column('Provisioner'),
      column('ReclaimPolicy'),
      column('VolumeBindingMode'),
      column('AllowVolumeExpansion'),
      AGE,
    ],
    cells(obj, now) {
      const isDefault = obj.metadata.annotations?.['storageclass.kubernetes.io/is-default-class'] === 'true';
      return [
        isDefault ? `${obj.metadata.name} (default)` : obj.metadata.name,
        String(obj['provisioner'] ?? ''),
        String(obj['reclaimPolicy'] ?? 'Delete'),
        String(obj['volumeBindingMode'] ?? 'Immediate'),
        String(obj['allowVolumeExpansion'] ?? false),
        ageOf(obj.metadata.creationTimestamp, now),
      ];
    },
  },
  HorizontalPodAutoscaler: {
    columns: [
      NAME,
      column('Reference'),
      column('Targets'),
      column('MinPods'),
      integer('MaxPods'),
      integer('Replicas'),
      AGE,
    ],
    cells(obj, now) {
      const spec: Json = obj.spec ?? {};
      return [
        obj.metadata.name,
        `${spec.scaleTargetRef?.kind ?? ''}/${spec.scaleTargetRef?.name ?? ''}`,
        hpaTargets(spec.metrics),
        spec.minReplicas === undefined ? '<unset>' : String(spec.minReplicas),
        spec.maxReplicas ?? 0,
        obj.status?.currentReplicas ?? 0,
        ageOf(obj.metadata.creationTimestamp, now),
      ];
    },
  },
  Ingress: {
    columns: [NAME, column('Class'), column('Hosts'), column('Address'), column('Ports'), AGE],
    cells(obj, now) {
      const rules = (obj.spec?.rules ?? []) as Json[];
      // ingressLoadBalancerStatusStringer: unique ips (else hostnames), sorted; the server prints wide, unclipped.
      const addresses = [
        ...new Set(
          ((obj.status?.loadBalancer?.ingress ?? []) as Json[])
            .map((entry) => entry.ip || entry.hostname)
            .filter(Boolean),
        ),
      ].sort();
      return [
        obj.metadata.name,
        obj.spec?.ingressClassName ?? '<none>',
        ingressHosts(rules),
        addresses.join(','),
        ((obj.spec?.tls ?? []) as Json[]).length > 0 ? '80, 443' : '80',
        ageOf(obj.metadata.creationTimestamp, now),
      ];
    },
  },
  IngressClass: {
    columns: [NAME, column('Controller'), column('Parameters'), AGE],
    cells(obj, now) {
      const parameters: Json | undefined = obj.spec?.parameters;
      const shown = parameters
        ? `${parameters.kind}${parameters.apiGroup ? `.${parameters.apiGroup}` : ''}/${parameters.name}`
        : '<none>';
      return [obj.metadata.name, obj.spec?.controller ?? '', shown, ageOf(obj.metadata.creationTimestamp, now)];
    },
  },
  APIService: {
    columns: [NAME, column('Service'), column('Available'), AGE],
    cells(obj, now) {
      const service = obj.spec?.service ? `${obj.spec.service.namespace}/${obj.spec.service.name}` : 'Local';
      const available = ((obj.status?.conditions ?? []) as Json[]).find((condition) => condition.type === 'Available');
      const cell = !available
        ? 'Unknown'
        : available.status === 'True'
          ? 'True'
          : `${available.status} (${available.reason})`;
      return [obj.metadata.name, service, cell, ageOf(obj.metadata.creationTimestamp, now)];
    },
  },
};

/** formatHPAMetrics with no current metrics (there is no metrics server): `cpu: <unknown>/70%`. */
function hpaTargets(metrics: Json[] | undefined): string {
  const list =
    metrics && metrics.length > 0
      ? metrics
      : [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }];
  const shown = list.slice(0, 2).map((metric) => {
    const target: Json =
      metric.resource?.target ??
      metric.containerResource?.target ??
      metric.pods?.target ??
      metric.object?.target ??
      metric.external?.target ??
      {};
    const wanted =
      target.averageUtilization !== undefined
        ? `${target.averageUtilization}%`
        : (target.averageValue ?? target.value ?? '<unknown>');
    const name = metric.resource?.name ?? metric.containerResource?.name;
    return name ? `${name}: <unknown>/${wanted}` : `<unknown>/${wanted}`;
  });
  return list.length > 2 ? `${shown.join(', ')} + ${list.length - 2} more...` : shown.join(', ');
}

/** formatHosts: the first three rule hosts, "*" without any. */
function ingressHosts(rules: Json[]): string {
  const hosts = rules
    .map((rule) => rule.host as string | undefined)
    .filter((host): host is string => Boolean(host))
    .slice(0, 3);
  if (hosts.length === 0) return '*';
  return rules.length > 3 ? `${hosts.join(',')} + ${rules.length - 3} more...` : hosts.join(',');
}
