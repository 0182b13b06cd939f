// Reads what a failed kubectl run printed and says, in one paragraph, what went wrong and what to do.
import type { ExecResult } from '../process/exec.js';

export type KubectlFailureKind =
  | 'missing-binary'
  | 'unreachable'
  | 'forbidden'
  | 'unauthorized'
  | 'invalid'
  | 'not-found'
  | 'no-context'
  | 'unknown-kind'
  | 'server-error'
  | 'timeout'
  | 'other';

export interface KubectlFailure {
  kind: KubectlFailureKind;
  /** The most telling line kubectl printed, without the kubectl log prefix. */
  detail: string;
  /** What a person should do next. */
  nextStep: string;
}

interface FailurePattern {
  kind: KubectlFailureKind;
  pattern: RegExp;
  nextStep: string | ((match: RegExpExecArray) => string);
  /** A better one-line account than kubectl's last lines, when the error has a known shape. */
  detail?: (stderr: string) => string;
}

// Patterns are matched against kubectl's stderr, in order; the first match wins.
// Texts come from client-go (connection errors), kube-apiserver Status messages and kubectl itself.
const FAILURE_PATTERNS: readonly FailurePattern[] = [
  {
    // The kubeconfig's exec credential plugin failed (client-go plugin/pkg/client/auth/exec/exec.go:
    // `exec: executable %s failed with exit code %d`, `exec: executable %s not found`, wrapped by the
    // transport's `getting credentials: %v`). Its own stderr (what to do: log in again) goes to
    // kubectl's stderr: it is quoted once, before kubectl's line.
    kind: 'unauthorized',
    pattern: /getting credentials: (?:exec: )?(?:executable (\S+) (?:failed with exit code (\d+)|not found))?/,
    nextStep: (match) =>
      `the kubeconfig's credential plugin${match[1] ? ` ${match[1]}` : ''} ${match[2] ? `failed (exit ${match[2]})` : 'gave no credentials'}: do what it says (log in again), check with kubectl auth whoami, and run kguard again`,
    detail: (stderr) => {
      const lines = distinct(
        stderr
          .split('\n')
          .map((line) => line.trim())
          .filter((line) => line !== ''),
      );
      const kubectlLine = lines.find((line) => /getting credentials:/.test(line)) ?? '';
      const plugin = lines.filter((line) => line !== kubectlLine && !KLOG_PREFIX.test(line) && !/^error: /.test(line));
      const credentials = /getting credentials: [^"]*/.exec(kubectlLine)?.[0] ?? kubectlLine;
      return plugin.length > 0
        ? `the credential plugin says: ${plugin.slice(-3).join(' ')} (kubectl: ${credentials})`
        : credentials;
    },
  },
  {
    kind: 'unreachable',
    pattern:
      /connection refused|was refused|no such host|Unable to connect to the server|i\/o timeout|connection reset|dial tcp|EOF$/m,
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
    nextStep:
      'ask for RBAC rights to get, patch and apply these objects (kubectl auth can-i patch deployments -n NAMESPACE)',
  },
  {
    // The API server failed to answer, not refused the request: 500, 503, 504, 429 Status
    // reasons as kubectl prints them (apimachinery StatusReason).
    kind: 'server-error',
    pattern:
      /\((InternalError|ServiceUnavailable|ServerTimeout|Timeout|TooManyRequests)\)|the server is currently unable to handle the request/,
    nextStep: 'the API server is failing or overloaded (kubectl get --raw /readyz); run kguard again when it answers',
  },
  {
    // kubectl --kubeconfig=PATH with no such file: client-go's loader stats it first.
    kind: 'no-context',
    pattern: /^(?:error: )?stat (.+): no such file or directory$/m,
    nextStep: (match) => `the kubeconfig file ${match[1]} does not exist: check the --kubeconfig path or KUBECONFIG`,
  },
  {
    // `context "x" does not exist` (kubectl config), `context was not found for specified context: x` (client-go).
    kind: 'no-context',
    pattern: /context "([^"]+)" does not exist|context was not found for specified context: (\S+)/,
    nextStep: (match) =>
      `the kubeconfig has no context named ${match[1] ?? match[2]}: list them with kubectl config get-contexts and pass one with --context`,
  },
  {
    kind: 'no-context',
    pattern: /current-context must exist|no configuration has been provided|invalid configuration/,
    nextStep: 'pick a context with --context or set one with kubectl config use-context',
  },
  {
    // The RESTMapper knows no such kind: its CustomResourceDefinition is not installed, or the
    // apiVersion/kind is misspelt (kubectl builder: `resource mapping not found for name: "x"
    // namespace: "" from "file": no matches for kind "K" in version "G/V"`, then
    // `ensure CRDs are installed first`).
    kind: 'unknown-kind',
    pattern: /no matches for kind "([^"]+)" in version "([^"]+)"/,
    nextStep: (match) =>
      `install the CustomResourceDefinition that defines ${match[1]} (${match[2]}) before applying objects of that kind (kubectl get crd), or fix apiVersion/kind`,
    detail: (stderr) => {
      const unknown = [
        ...stderr.matchAll(
          /resource mapping not found for name: "([^"]*)" namespace: "([^"]*)" from "([^"]*)": no matches for kind "([^"]+)" in version "([^"]+)"/g,
        ),
      ];
      if (unknown.length === 0) return firstLine(stderr, /no matches for kind/);
      return unknown
        .map(
          ([, name, , file, kind, version]) =>
            `the cluster does not know kind ${kind} in version ${version} (${file}${name ? `, ${kind} "${name}"` : ''})`,
        )
        .join('; ');
    },
  },
  {
    kind: 'invalid',
    pattern:
      /error validating|is invalid|strict decoding error|unknown field|error converting YAML|error parsing|cannot unmarshal|\(BadRequest\)|\(Invalid\)/,
    nextStep: 'fix the manifest',
  },
  {
    // Objects for a namespace that does not exist (NamespaceLifecycle admission, or the REST
    // storage: `namespaces "x" not found`).
    kind: 'not-found',
    pattern: /namespaces "([^"]+)" not found/,
    nextStep: (match) =>
      `create the namespace ${match[1]} first (kubectl create namespace ${match[1]}), or add a Namespace object to the manifests`,
  },
  {
    kind: 'not-found',
    pattern: /\(NotFound\)|not found/,
    nextStep: 'check the object names and namespace',
  },
  {
    kind: 'timeout',
    pattern: /timed out|Timeout exceeded|context deadline exceeded/,
    nextStep:
      'the API server is slow or overloaded: check it with kubectl get --raw /readyz, and retry (--timeout gives the whole apply longer)',
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
      detail: 'kubectl did not answer in time and was killed',
      nextStep: 'the API server is slow or unreachable; check it with kubectl cluster-info and retry',
    };
  }
  const stderr = result.stderr.trim();
  for (const candidate of FAILURE_PATTERNS) {
    const match = candidate.pattern.exec(stderr);
    if (!match) continue;
    return {
      kind: candidate.kind,
      detail: summarized(candidate.detail?.(stderr) ?? tellingLine(stderr)),
      nextStep: typeof candidate.nextStep === 'string' ? candidate.nextStep : candidate.nextStep(match),
    };
  }
  const said = summarized(tellingLine(stderr));
  return {
    kind: 'other',
    detail: said || `kubectl exited with code ${result.exitCode} and printed nothing`,
    // Quote, don't point: the kubectl error is not printed anywhere but in this message.
    nextStep: said
      ? 'fix what kubectl names in its error (quoted above in this message)'
      : 'run the same kubectl command by hand to see what it does',
  };
}

/**
 * klog's header (`E1203 06:16:01.123456   12345 memcache.go:265] `): severity, date, time,
 * thread id, file:line (k8s.io/klog/v2 header format).
 */
const KLOG_PREFIX = /^[IWEF]\d{4} \d\d:\d\d:\d\d(?:\.\d+)?\s+\d+ [^\s\]]+:\d+\] /;

/** kubectl prints klog lines before its own error; keep the last real ones, without klog headers. */
function tellingLine(stderr: string): string {
  const lines = stderr
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
  const plain = lines.filter((line) => !KLOG_PREFIX.test(line));
  const chosen = plain.length > 0 ? plain : lines.map(withoutKlogHeader);
  // A line kubectl printed twice (a plugin's stderr, once per request) is quoted once.
  return distinct(chosen.slice(-3))
    .join(' ')
    .replace(/^error: /, '');
}

/** How many errors of a long list are quoted; the rest are counted. */
const QUOTED_ERRORS = 3;

/**
 * A long list of errors as its first few and a count (#45: 5,000 NotFound errors came as one 480 KB
 * line). kubectl prints several errors as apimachinery's aggregate, `[first, second, …]`
 * (k8s.io/apimachinery/pkg/util/errors Aggregate.Error: distinct messages joined by ", " in
 * brackets), or one per line.
 */
export function summarized(detail: string): string {
  const aggregate = /^(.*?)\[(.+)\]$/s.exec(detail);
  const entries = aggregate
    ? aggregate[2]!.split(
        /, (?=(?:Error from server|error when|error: |[a-z.]+ "[^"]*" (?:not found|is forbidden|is invalid)))/,
      )
    : detail.split(/ (?=Error from server \()/);
  if (entries.length > QUOTED_ERRORS + 1) {
    return `${aggregate?.[1] ?? ''}${entries.slice(0, QUOTED_ERRORS).join('; ')}; and ${entries.length - QUOTED_ERRORS} more errors like these`;
  }
  return detail.length > 4000 ? `${detail.slice(0, 2000)}… (${detail.length - 2000} more characters)` : detail;
}

function distinct(lines: readonly string[]): string[] {
  return [...new Set(lines)];
}

/** `E1203 … run.go:72] "command failed" err="…"` (kubectl's structured exit log) → the error itself. */
function withoutKlogHeader(line: string): string {
  const message = line.replace(KLOG_PREFIX, '');
  const structured = /^"command failed" err="(.*)"$/.exec(message)?.[1];
  return structured === undefined ? message : structured.replace(/\\"/g, '"').replace(/\\\\/g, '\\');
}

function firstLine(stderr: string, pattern: RegExp): string {
  return (stderr.split('\n').find((line) => pattern.test(line)) ?? tellingLine(stderr)).replace(/^error: /, '').trim();
}
