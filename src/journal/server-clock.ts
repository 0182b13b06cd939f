// The API server's clock, read without changing anything: a server dry run of a Lease create.
// The API server fills the new object's system fields before the dry run stops it reaching etcd
// (apiserver registry/rest/create.go BeforeCreate → FillObjectMetaSystemFields:
// `meta.SetCreationTimestamp(metav1.Now())`; registry/generic/registry/store.go Create passes
// dryrun.IsDryRun to the storage, which returns the object unstored). Journal expiry and a Lease's
// age are told by this clock and the times the server stamped, never by a machine's clock (#45):
// the one place where two kguards on skewed machines meet is the API server.
import type { Kubectl } from '../kubectl/types.js';
import type { KubeObject } from '../objects/model.js';

const dryRunPath = (namespace: string) =>
  `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(namespace)}/leases?dryRun=All`;

/** The API server's time now (epoch ms, to the second), or undefined when it cannot be read (no right to create leases there). */
export async function serverNow(
  kubectl: Pick<Kubectl, 'create'>,
  namespace: string,
  deadlineMs: number,
): Promise<number | undefined> {
  const probe: KubeObject = {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name: '', generateName: 'kguard-clock-', namespace },
  };
  const answered = await kubectl.create(probe, dryRunPath(namespace), deadlineMs).catch(() => undefined);
  if (!answered?.ok) return undefined;
  const stamped = Date.parse(answered.object?.metadata.creationTimestamp ?? '');
  return Number.isFinite(stamped) ? stamped : undefined;
}

/**
 * The newest time the API server stamped on any of `objects` (creation, managedFields): a lower
 * bound of its clock, when it cannot be read. Too early, it makes runs look younger and alive:
 * the safe side (nothing is deleted or restored by it).
 */
export function newestServerTime(objects: readonly KubeObject[]): number | undefined {
  let newest: number | undefined;
  for (const object of objects) {
    const times = [
      object.metadata.creationTimestamp,
      ...(object.metadata.managedFields ?? []).map((entry) => (entry as { time?: string }).time),
    ]
      .map((time) => Date.parse(time ?? ''))
      .filter(Number.isFinite);
    for (const time of times) if (newest === undefined || time > newest) newest = time;
  }
  return newest;
}
