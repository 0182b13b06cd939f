// Reads what a failed kubectl run printed and says, in one paragraph, what went wrong and what to do.
import type { ExecResult } from './exec.js';

export type KubectlFailureKind =
  | 'missing-binary'
  | 'unreachable'
  | 'forbidden'
  | 'unauthorized'
  | 'invalid'
  | 'not-found'
  | 'no-context'
  | 'timeout'
  | 'other';

export interface KubectlFailure {
  kind: KubectlFailureKind;
  /** The most telling line kubectl printed, without the kubectl log prefix. */
  detail: string;
  /** What a person should do next. */
  nextStep: string;
}

// Patterns are matched against kubectl's stderr, in order; the first match wins.
// Texts come from client-go (connection errors), kube-apiserver Status messages and kubectl itself.
const FAILURE_PATTERNS: ReadonlyArray<{ kind: KubectlFailureKind; pattern: RegExp; nextStep: string }> = [
  {
    kind: 'unreachable',
    pattern: /connection refused|was refused|no such host|Unable to connect to the server|i\/o timeout|connection reset|dial tcp|EOF$/m,
    nextStep: 'check that the cluster is up and that --context/--kubeconfig point at it (kubectl cluster-info)',
  },
  {
    kind: 'unauthorized',
    pattern: /Unauthorized|You must be logged in to the server|provide credentials/,
    nextStep: 'refresh your cluster credentials (kubectl auth whoami) and run kguard again',
  },
  {
    kind: 'forbidden',
    pattern: /\(Forbidden\)|is forbidden: User/,
    nextStep: 'ask for RBAC rights to get, patch and apply these objects (kubectl auth can-i patch deployments -n NAMESPACE)',
  },
  {
    kind: 'no-context',
    pattern: /current-context must exist|context was not found|no configuration has been provided|invalid configuration/,
    nextStep: 'pick a context with --context or set one with kubectl config use-context',
  },
  {
    kind: 'invalid',
    pattern: /error validating|is invalid|strict decoding error|unknown field|error converting YAML|error parsing|cannot unmarshal|\(BadRequest\)|\(Invalid\)/,
    nextStep: 'fix the manifest',
  },
  {
    kind: 'not-found',
    pattern: /\(NotFound\)|not found/,
    nextStep: 'check the object names and namespace',
  },
  {
    kind: 'timeout',
    pattern: /timed out|Timeout exceeded|context deadline exceeded/,
    nextStep: 'the API server is slow or overloaded; retry, or raise --request-timeout',
  },
];

export function diagnoseKubectlFailure(result: ExecResult): KubectlFailure {
  if (result.spawnError) {
    return {
      kind: 'missing-binary',
      detail: `kubectl could not be started (${result.spawnError})`,
      nextStep: 'install kubectl and put it on PATH, or point KGUARD_KUBECTL at it',
    };
  }
  if (result.timedOut) {
    return {
      kind: 'timeout',
      detail: 'kubectl did not answer in time',
      nextStep: 'the API server is slow or unreachable; check it with kubectl cluster-info and retry',
    };
  }
  const stderr = result.stderr.trim();
  const match = FAILURE_PATTERNS.find(({ pattern }) => pattern.test(stderr));
  return {
    kind: match?.kind ?? 'other',
    detail: tellingLine(stderr) || `kubectl exited with code ${result.exitCode} and printed nothing`,
    nextStep: match?.nextStep ?? 'read the kubectl error above and fix its cause',
  };
}

/** kubectl prints klog lines (E1202 12:00:00.000 1 memcache.go:265] ...) before its own error; keep the last real one. */
function tellingLine(stderr: string): string {
  const lines = stderr
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
  const plain = lines.filter((line) => !/^[EWI]\d{4} \d\d:\d\d:\d\d/.test(line));
  const chosen = plain.length > 0 ? plain : lines;
  return chosen.slice(-3).join(' ').replace(/^error: /, '');
}
