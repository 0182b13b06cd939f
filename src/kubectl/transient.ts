// Which kubectl failures are worth trying again: a busy, restarting or briefly unreachable API
// server, as opposed to an answer that will be the same next time (invalid, forbidden, conflict).
// One table for every write kguard makes: the apply and the restore's PUT, POST and DELETE.
import type { ExecResult } from './process/exec.js';

/**
 * Matched against kubectl's stderr. Status reasons as kubectl prints them (`Error from server
 * (InternalError)`, apimachinery StatusReason: IsInternalError, IsServiceUnavailable,
 * IsTooManyRequests, IsServerTimeout, IsTimeout), their messages, and client-go transport errors.
 */
const TRANSIENT_PATTERNS: readonly RegExp[] = [
  /\((InternalError|ServiceUnavailable|TooManyRequests|ServerTimeout|Timeout)\)/,
  // 503 without a Status body; also kube-aggregator for an unavailable APIService.
  /the server is currently unable to handle the request/,
  // 429: "Too many requests, please try again later." (apiserver max-in-flight filter).
  /too many requests/i,
  /etcdserver: (request timed out|leader changed|too many requests)/,
  // Transport: the connection dropped or never came (an API server restarting, a load balancer).
  /connection reset by peer|connection refused|The connection to the server \S+ was refused|i\/o timeout|broken pipe|unexpected EOF|http2: client connection lost|TLS handshake timeout/,
];

export function isTransientFailure(
  result: Pick<ExecResult, 'exitCode' | 'stderr' | 'timedOut' | 'spawnError'>,
): boolean {
  // A call killed at its deadline has used its time; a missing binary will stay missing.
  if (result.exitCode === 0 || result.timedOut || result.spawnError) return false;
  return TRANSIENT_PATTERNS.some((pattern) => pattern.test(result.stderr));
}

/** Waits between attempts: three retries, 0.5 s, 1 s, 2 s. */
export const RETRY_DELAYS_MS: readonly number[] = [500, 1000, 2000];

/**
 * Runs `attempt` again after each transient failure, waiting the given delays in between; the
 * last result is returned either way. Only for writes that are safe to repeat (see callers).
 */
export async function retryTransient<T extends Pick<ExecResult, 'exitCode' | 'stderr' | 'timedOut' | 'spawnError'>>(
  attempt: () => Promise<T>,
  delaysMs: readonly number[],
  sleep: (ms: number) => Promise<void>,
  onRetry?: (result: T, attemptNumber: number) => void,
): Promise<T> {
  let result = await attempt();
  let said: T | undefined;
  for (let index = 0; index < delaysMs.length && isTransientFailure(result); index += 1) {
    said = result;
    onRetry?.(result, index + 1);
    await sleep(delaysMs[index] as number);
    result = await attempt();
  }
  // A retry that failed without a word (killed at its deadline, say) does not hide what kubectl
  // printed the time before: that is the error a person can act on.
  if (said && result.exitCode !== 0 && result.stderr.trim() === '') return said;
  return result;
}

/**
 * Whether kubectl's words say the API server could not be reached at all (nothing answered), as
 * opposed to an answer: client-go's net.IsConnectionRefused / IsConnectionReset / IsProbableEOF
 * (k8s.io/apimachinery/pkg/util/net/util.go, http.go) and the dial and timeout texts kubectl prints
 * ("The connection to the server HOST was refused - did you specify the right host or port?",
 * "Unable to connect to the server: dial tcp …: i/o timeout").
 */
export function isUnreachableText(stderr: string): boolean {
  return UNREACHABLE.test(stderr);
}

const UNREACHABLE =
  /connection refused|The connection to the server \S+ was refused|Unable to connect to the server|connection reset by peer|unexpected EOF|\bEOF$|i\/o timeout|no route to host|http2: client connection lost|TLS handshake timeout/m;

/**
 * Whether a failed write or read may succeed if asked again: unreachable, or an answer the
 * transient table holds (5xx, 429, etcd's leader change). What client-go's IsRetriableError and
 * the reflector's back-off retry on.
 */
export function mayPassLater(stderr: string): boolean {
  return isUnreachableText(stderr) || TRANSIENT_PATTERNS.some((pattern) => pattern.test(stderr));
}

/**
 * Capped exponential back-off with jitter, as apimachinery's wait.Backoff steps it
 * (k8s.io/apimachinery/pkg/util/wait/backoff.go: the duration is multiplied by Factor each step and
 * held at Cap; Jitter adds up to Jitter × duration at random).
 */
export interface Backoff {
  initialMs: number;
  factor: number;
  capMs: number;
  jitter: number;
}

/** The restore's back-off while the API server is away: 0.5 s, 1 s, 2 s, then every 4 s (plus up to 25 %). */
export const RESTORE_BACKOFF: Backoff = { initialMs: 500, factor: 2, capMs: 4000, jitter: 0.25 };

/** The wait before retry number `attempt` (0 = the first retry); `random` in [0, 1). */
export function backoffMs(attempt: number, backoff: Backoff, random: number): number {
  const base = Math.min(backoff.capMs, backoff.initialMs * backoff.factor ** Math.max(0, attempt));
  return Math.round(base * (1 + backoff.jitter * random));
}
