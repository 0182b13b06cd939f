// ConfigMaps and Secrets a pod needs before its containers can start, checked the way the kubelet
// does: env / envFrom references fail container creation (CreateContainerConfigError, message
// `configmap "x" not found`), volume sources fail the mount (FailedMount event, pod stays in
// ContainerCreating). Both are re-checked on every retry, so creating the object later heals the pod.

import type { Store } from '../../store.js';
import type { KubeObject } from '../../types.js';

interface KeyRef {
  name?: string;
  key?: string;
  optional?: boolean;
}

/** The first env/envFrom problem of a container, worded like kubelet_pods.go makeEnvironmentVariables. */
export function containerConfigError(
  store: Store,
  pod: KubeObject,
  container: Record<string, any>,
): string | undefined {
  // eslint-disable-line @typescript-eslint/no-explicit-any
  const namespace = pod.metadata.namespace ?? 'default';
  for (const source of (container.envFrom as { configMapRef?: KeyRef; secretRef?: KeyRef }[] | undefined) ?? []) {
    if (
      source.configMapRef &&
      !source.configMapRef.optional &&
      !store.get('ConfigMap', namespace, source.configMapRef.name ?? '')
    ) {
      return `configmap "${source.configMapRef.name}" not found`;
    }
    if (
      source.secretRef &&
      !source.secretRef.optional &&
      !store.get('Secret', namespace, source.secretRef.name ?? '')
    ) {
      return `secret "${source.secretRef.name}" not found`;
    }
  }
  for (const variable of (container.env as
    | { valueFrom?: { configMapKeyRef?: KeyRef; secretKeyRef?: KeyRef } }[]
    | undefined) ?? []) {
    const configMapRef = variable.valueFrom?.configMapKeyRef;
    if (configMapRef && !configMapRef.optional) {
      const configMap = store.get('ConfigMap', namespace, configMapRef.name ?? '');
      if (!configMap) return `configmap "${configMapRef.name}" not found`;
      if (!hasKey(configMap, ['data', 'binaryData'], configMapRef.key))
        return `couldn't find key ${configMapRef.key} in ConfigMap ${namespace}/${configMapRef.name}`;
    }
    const secretRef = variable.valueFrom?.secretKeyRef;
    if (secretRef && !secretRef.optional) {
      const secret = store.get('Secret', namespace, secretRef.name ?? '');
      if (!secret) return `secret "${secretRef.name}" not found`;
      if (!hasKey(secret, ['data', 'stringData'], secretRef.key))
        return `couldn't find key ${secretRef.key} in Secret ${namespace}/${secretRef.name}`;
    }
  }
  return undefined;
}

/** FailedMount messages for volumes whose ConfigMap / Secret is missing. */
export function volumeMountErrors(store: Store, pod: KubeObject): string[] {
  const namespace = pod.metadata.namespace ?? 'default';
  const errors: string[] = [];
  for (const volume of (pod.spec?.volumes as Record<string, any>[] | undefined) ?? []) {
    // eslint-disable-line @typescript-eslint/no-explicit-any
    const configMap = volume.configMap as KeyRef | undefined;
    if (configMap && !configMap.optional && !store.get('ConfigMap', namespace, configMap.name ?? '')) {
      errors.push(`MountVolume.SetUp failed for volume "${volume.name}" : configmap "${configMap.name}" not found`);
    }
    const secret = volume.secret as { secretName?: string; optional?: boolean } | undefined;
    if (secret && !secret.optional && !store.get('Secret', namespace, secret.secretName ?? '')) {
      errors.push(`MountVolume.SetUp failed for volume "${volume.name}" : secret "${secret.secretName}" not found`);
    }
  }
  return errors;
}

function hasKey(obj: KubeObject, fields: string[], key: string | undefined): boolean {
  if (key === undefined) return true;
  return fields.some((field) => Object.hasOwn((obj[field] as Record<string, unknown> | undefined) ?? {}, key));
}
