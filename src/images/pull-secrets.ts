// The pull credentials of a pod, read as the kubelet gets them: the pod's imagePullSecrets, or,
// when it names none, its ServiceAccount's (the ServiceAccount admission plugin copies them into
// the pod only then: plugin/pkg/admission/serviceaccount/admission.go); Secrets of type
// kubernetes.io/dockerconfigjson or kubernetes.io/dockercfg; one that is missing or of another
// type is skipped, as the kubelet skips it. An object this apply writes (a Secret or
// ServiceAccount in the same manifests) is read as the apply would leave it. The Secrets are read
// through kubectl (the API channel), never printed: kubectl's `observe` hands their values to the
// redactor like every Secret kguard reads.
import type { Kubectl } from '../kubectl/types.js';
import type { KubeObject } from '../objects/model.js';
import { credentialsOfSecret, makeKeyring, type Keyring, type PullCredential } from './keyring.js';
import type { ImageToCheck } from './templates.js';

export type PodKeyring = { ok: true; keyring: Keyring } | { ok: false; why: string };

type Read = { ok: true; object: KubeObject | undefined } | { ok: false; why: string };

export function pullCredentialReader(
  applied: readonly KubeObject[],
  kubectl: Pick<Kubectl, 'getObject'>,
): (image: ImageToCheck) => Promise<PodKeyring> {
  const reads = new Map<string, Promise<Read>>();
  const ofApply = new Map(
    applied.map((object) => [`${object.kind}/${object.metadata.namespace ?? ''}/${object.metadata.name}`, object]),
  );
  const read = (kind: 'Secret' | 'ServiceAccount', namespace: string, name: string): Promise<Read> => {
    const key = `${kind}/${namespace}/${name}`;
    let known = reads.get(key);
    if (!known) {
      const own = ofApply.get(key);
      known = own
        ? Promise.resolve({ ok: true, object: own })
        : kubectl
            .getObject(kind === 'Secret' ? 'secrets' : 'serviceaccounts', namespace, name)
            .then((object): Read => ({ ok: true, object }))
            .catch((error: unknown): Read => ({ ok: false, why: readFailure(error, kind, namespace) }));
      reads.set(key, known);
    }
    return known;
  };
  const keyrings = new Map<string, Promise<PodKeyring>>();
  return (image) => {
    const key = JSON.stringify([image.namespace, image.pullSecrets, image.serviceAccount]);
    let known = keyrings.get(key);
    if (!known) {
      known = (async (): Promise<PodKeyring> => {
        let names = image.pullSecrets;
        if (names.length === 0) {
          const account = await read('ServiceAccount', image.namespace, image.serviceAccount);
          if (!account.ok) return account;
          const secrets = (account.object as { imagePullSecrets?: Array<{ name?: string }> } | undefined)
            ?.imagePullSecrets;
          names = (secrets ?? []).flatMap((secret) => (secret?.name ? [secret.name] : []));
        }
        const entries: Array<[string, PullCredential]> = [];
        for (const secret of await Promise.all(names.map((name) => read('Secret', image.namespace, name)))) {
          if (!secret.ok) return secret;
          if (secret.object)
            entries.push(...credentialsOfSecret(secret.object as Parameters<typeof credentialsOfSecret>[0]));
        }
        return { ok: true, keyring: makeKeyring(entries) };
      })();
      keyrings.set(key, known);
    }
    return known;
  };
}

/** Why a pull Secret or ServiceAccount could not be read: RBAC's refusal named as the rule it lacks. */
function readFailure(error: unknown, kind: 'Secret' | 'ServiceAccount', namespace: string): string {
  const message = error instanceof Error ? error.message : String(error);
  const resource = kind === 'Secret' ? 'secrets' : 'serviceaccounts';
  if (/forbidden/i.test(message))
    return `this user may not get ${resource} in namespace ${namespace}, so the pod's pull credentials cannot be read (grant get on ${resource} to check)`;
  return `the pod's pull credentials could not be read (${kind.toLowerCase()} in namespace ${namespace}: ${message.slice(0, 200)})`;
}
