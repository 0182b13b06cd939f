// The control plane's certificates and keys, made with openssl into the cluster's temp dir at each
// start: a CA, the API server's serving certificate for 127.0.0.1, one client certificate per
// user (the CN is the user name, each O a group, as the x509 authenticator reads them) and the
// service-account signing key pair. Nothing here outlives the cluster's temp dir.

import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';

export interface ClientIdentity {
  /** File stem in the PKI dir. */
  file: string;
  /** The user name (certificate CN). */
  user: string;
  /** Groups (certificate O, one each). */
  groups: string[];
}

/** Who talks to the API server. system:masters passes RBAC without any binding. */
export const IDENTITIES = {
  admin: { file: 'admin', user: 'kguard-admin', groups: ['system:masters'] },
  controllerManager: { file: 'controller-manager', user: 'system:kube-controller-manager', groups: [] },
  scheduler: { file: 'scheduler', user: 'system:kube-scheduler', groups: [] },
  // kwok acts for every node, which the Node authorizer would only allow one node at a time.
  kwok: { file: 'kwok', user: 'kwok-controller', groups: ['system:masters'] },
  restricted: { file: 'restricted', user: 'kguard-restricted', groups: [] },
} as const satisfies Record<string, ClientIdentity>;

export interface Pki {
  dir: string;
  caCert: string;
  caKey: string;
  servingCert: string;
  servingKey: string;
  serviceAccountKey: string;
  serviceAccountPublicKey: string;
  /** PEM text of the CA, for kubeconfigs. */
  caPem: string;
  clientCert(identity: ClientIdentity): string;
  clientKey(identity: ClientIdentity): string;
  /** Signs a client certificate for an identity not in IDENTITIES (a real node, the API server's kubelet client). */
  issue(identity: ClientIdentity): Promise<void>;
}

export async function makePki(dir: string): Promise<Pki> {
  const path = (name: string) => join(dir, name);
  const openssl = (args: string[]) => execa('openssl', args, { cwd: dir, timeout: 30_000 });
  // P-256 keys: generated in milliseconds, and accepted for serving, client auth and
  // service-account tokens (ES256).
  const ecKey = (name: string) =>
    openssl(['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', path(name)]);

  await ecKey('ca.key');
  await openssl([
    'req',
    '-x509',
    '-new',
    '-key',
    'ca.key',
    '-subj',
    '/CN=kguard-test-ca',
    '-days',
    '2',
    '-out',
    'ca.crt',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign,digitalSignature',
  ]);

  const sign = async (stem: string, subject: string, extensions: string) => {
    await ecKey(`${stem}.key`);
    await openssl(['req', '-new', '-key', `${stem}.key`, '-subj', subject, '-out', `${stem}.csr`]);
    const extFile = path(`${stem}.ext`);
    await writeFile(extFile, extensions);
    await openssl([
      'x509',
      '-req',
      '-in',
      `${stem}.csr`,
      '-CA',
      'ca.crt',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-days',
      '2',
      '-extfile',
      extFile,
      '-out',
      `${stem}.crt`,
    ]);
  };

  const serving = [
    'basicConstraints=CA:FALSE',
    'keyUsage=critical,digitalSignature,keyEncipherment',
    'extendedKeyUsage=serverAuth',
    'subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local,IP:10.96.0.1',
  ].join('\n');
  const client = [
    'basicConstraints=CA:FALSE',
    'keyUsage=critical,digitalSignature,keyEncipherment',
    'extendedKeyUsage=clientAuth',
  ].join('\n');
  await sign('apiserver', '/CN=kube-apiserver', serving);
  const issue = (identity: ClientIdentity) =>
    sign(identity.file, `${identity.groups.map((group) => `/O=${group}`).join('')}/CN=${identity.user}`, client);
  for (const identity of Object.values(IDENTITIES)) await issue(identity);
  await ecKey('sa.key');
  await openssl(['pkey', '-in', 'sa.key', '-pubout', '-out', 'sa.pub']);

  return {
    dir,
    caCert: path('ca.crt'),
    caKey: path('ca.key'),
    servingCert: path('apiserver.crt'),
    servingKey: path('apiserver.key'),
    serviceAccountKey: path('sa.key'),
    serviceAccountPublicKey: path('sa.pub'),
    caPem: await readFile(path('ca.crt'), 'utf8'),
    clientCert: (identity) => path(`${identity.file}.crt`),
    clientKey: (identity) => path(`${identity.file}.key`),
    issue,
  };
}
