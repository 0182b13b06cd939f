// Which images an apply asks the nodes to pull anew: every container (init, regular and
// ephemeral) of every pod template the kind table knows (kinds/table.ts podSpecAt), in the
// objects as the API server's dry run would store them, whose image the object does not already
// run (an unchanged template's images were pulled already). With the pod's pull Secrets and
// ServiceAccount, for the credentials (pull-secrets.ts). Pure.
import { rowFor } from '../kinds/table.js';
import { objectKey, refOf, type KubeObject, type ObjectRef } from '../objects/model.js';

interface PodSpecLike {
  containers?: Array<{ name?: string; image?: string }>;
  initContainers?: Array<{ name?: string; image?: string }>;
  ephemeralContainers?: Array<{ name?: string; image?: string }>;
  imagePullSecrets?: Array<{ name?: string }>;
  serviceAccountName?: string;
  serviceAccount?: string;
}

export interface ImageToCheck {
  object: ObjectRef;
  container: string;
  image: string;
  /** Where the pod runs: its pull Secrets and ServiceAccount are read there. */
  namespace: string;
  /** The pod's own imagePullSecrets (names); the ServiceAccount's are used when there are none. */
  pullSecrets: string[];
  serviceAccount: string;
}

/** The images to ask about, in the order of the objects and their containers. */
export function imagesToCheck(
  wouldBe: readonly KubeObject[],
  current: ReadonlyMap<string, KubeObject>,
  defaultNamespace: string,
): ImageToCheck[] {
  const found: ImageToCheck[] = [];
  for (const object of wouldBe) {
    const spec = podSpecOf(object);
    if (!spec) continue;
    const live = current.get(objectKey(refOf(object)));
    const running = new Set(containersOf(live ? podSpecOf(live) : undefined).map(({ image }) => image));
    for (const { name, image } of containersOf(spec)) {
      if (running.has(image)) continue;
      found.push({
        object: refOf(object),
        container: name,
        image,
        namespace: object.metadata.namespace || defaultNamespace,
        pullSecrets: (spec.imagePullSecrets ?? []).flatMap((secret) => (secret?.name ? [secret.name] : [])),
        // The ServiceAccount admission plugin sets "default" when the pod names none.
        serviceAccount: spec.serviceAccountName || spec.serviceAccount || 'default',
      });
    }
  }
  return found;
}

function podSpecOf(object: KubeObject): PodSpecLike | undefined {
  const path = rowFor(refOf(object)).podSpecAt;
  if (!path) return undefined;
  let at: unknown = object;
  for (const field of path) at = at && typeof at === 'object' ? (at as Record<string, unknown>)[field] : undefined;
  return at && typeof at === 'object' ? (at as PodSpecLike) : undefined;
}

function containersOf(spec: PodSpecLike | undefined): Array<{ name: string; image: string }> {
  if (!spec) return [];
  return [...(spec.initContainers ?? []), ...(spec.containers ?? []), ...(spec.ephemeralContainers ?? [])].flatMap(
    (container) =>
      typeof container?.image === 'string' && container.image !== ''
        ? [{ name: container.name ?? '', image: container.image }]
        : [],
  );
}
