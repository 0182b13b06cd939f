// Kubeconfigs for the control plane's users: the CA and the client certificate embedded, so a
// kubeconfig still works when copied elsewhere (npm run cluster:real -- --kubeconfig PATH).

import { readFile, writeFile } from 'node:fs/promises';
import { stringify } from 'yaml';
import type { ClientIdentity, Pki } from './pki.js';

export async function kubeconfigFor(
  pki: Pki,
  server: string,
  identity: ClientIdentity,
  namespace = 'default',
): Promise<string> {
  const base64 = async (file: string) => (await readFile(file)).toString('base64');
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name: 'kguard-real',
        cluster: { server, 'certificate-authority-data': Buffer.from(pki.caPem).toString('base64') },
      },
    ],
    users: [
      {
        name: identity.user,
        user: {
          'client-certificate-data': await base64(pki.clientCert(identity)),
          'client-key-data': await base64(pki.clientKey(identity)),
        },
      },
    ],
    contexts: [{ name: 'kguard-real', context: { cluster: 'kguard-real', user: identity.user, namespace } }],
    'current-context': 'kguard-real',
  });
}

export async function writeKubeconfig(
  path: string,
  pki: Pki,
  server: string,
  identity: ClientIdentity,
  namespace?: string,
): Promise<void> {
  // The key is in it: readable by its owner only.
  await writeFile(path, await kubeconfigFor(pki, server, identity, namespace), { mode: 0o600 });
}
