// A Kubectl that fails where a test says, beside the in-memory fake (fake-kubectl.ts), as Helm
// keeps failing_kube_client.go beside its fake client: each error path of the pipeline is then a
// one-line test. The failures are shaped as the real adapter returns them: a KubectlError with
// kubectl's stderr for a read or the apply, a WriteResult with ok false for a conditional write
// (kubectl/output/parse.ts writeFailure).
import { KubectlError } from '../../src/errors.js';
import type { Kubectl, WriteResult } from '../../src/kubectl/types.js';

/** Real stderr lines of kubectl 1.32, by what went wrong. */
export const KUBECTL_SAYS = {
  unreachable: 'The connection to the server 127.0.0.1:6443 was refused - did you specify the right host or port?',
  forbidden:
    'Error from server (Forbidden): deployments.apps "web" is forbidden: User "ci" cannot patch resource "deployments" in API group "apps" in the namespace "shop"',
  conflict:
    'Error from server (Conflict): Operation cannot be fulfilled on deployments.apps "web": the object has been modified; please apply your changes to the latest version and try again',
  invalid: 'The Deployment "web" is invalid: spec.template.spec.containers[0].image: Required value',
} as const;

export type Failure = keyof typeof KUBECTL_SAYS;

type Method = keyof Kubectl;
const WRITES = new Set<Method>(['replace', 'create', 'deleteExact']);

/** What a write answers when it fails the way `said` says. */
export function failedWrite(said: Failure): WriteResult {
  const stderr = KUBECTL_SAYS[said];
  return { ok: false, conflict: said === 'conflict', notFound: false, message: stderr, stderr };
}

/**
 * `base`, except that each method in `failures` fails from its first call on, as the real
 * adapter fails: a dry run and a list answer ok false, writes answer ok false, anything else
 * throws KubectlError (kubectl exited 1 with that stderr).
 */
export function failingKubectl(base: Kubectl, failures: Partial<Record<Method, Failure>>): Kubectl {
  return new Proxy(base, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      const failure = failures[property as Method];
      if (failure === undefined || typeof value !== 'function') return value;
      if (WRITES.has(property as Method)) return async () => failedWrite(failure);
      if (property === 'dryRun') return async () => ({ ok: false, stderr: KUBECTL_SAYS[failure], timedOut: false });
      if (property === 'listCollection')
        return async () => ({ ok: false, message: KUBECTL_SAYS[failure], transient: failure === 'unreachable' });
      return async (...args: unknown[]) => {
        throw new KubectlError(
          `kubectl failed: ${KUBECTL_SAYS[failure]}`,
          [String(property), ...args.map(String)],
          KUBECTL_SAYS[failure],
        );
      };
    },
  });
}
