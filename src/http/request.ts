// What a request of the HTTP client is, whichever way it goes (client.ts straight, proxied.ts
// through a proxy): its answer, its signal (a deadline, the run's cancellation, the caller's own),
// the certificate authorities it trusts, and the secrets scrubbed from its errors.
import { rootCertificates } from 'node:tls';

export type Method = 'GET' | 'HEAD';

/** One answer, as either way hands it over. */
export interface HttpAnswer {
  status: number;
  /** Header names in lower case; a header sent more than once is an array, in order. */
  headers: Record<string, string | string[] | undefined>;
  /** The body (a HEAD's is empty), read up to a little past maxBodyBytes. */
  body: string;
  /** The body went on past maxBodyBytes: `body` is its start. */
  cut: boolean;
}

export interface HttpClient {
  /**
   * One request, no redirect followed; rejects with the network's error (a TimeoutError at the
   * deadline, an AbortError when cancelled), its message scrubbed of the secrets.
   */
  send(url: string | URL, method: Method, headers: Record<string, string>, signal?: AbortSignal): Promise<HttpAnswer>;
  close(): Promise<void>;
}

export interface HttpClientOptions {
  /** Each request's deadline (ms), from connecting to the body's end. */
  timeoutMs: number;
  /** How much of a body is read at the most. */
  maxBodyBytes: number;
  /** Where the proxy variables are read (proxy.ts); process.env unless given. */
  env?: NodeJS.ProcessEnv;
  /** A PEM certificate authority trusted beside Node's bundled roots. */
  ca?: string;
  /** Ends every request at once (SIGINT, SIGTERM, SIGHUP), beside each one's deadline and signal. */
  cancel?: AbortSignal;
  /** Values no error may carry (credentials), beside the authorization header each request sends. */
  secrets?: readonly string[];
}

/** A request's signal: its deadline, the run's cancellation or the caller's signal, whichever comes first. */
export function requestSignal(timeoutMs: number, ...others: ReadonlyArray<AbortSignal | undefined>): AbortSignal {
  const deadline = AbortSignal.timeout(timeoutMs);
  const given = others.filter((signal): signal is AbortSignal => signal !== undefined);
  return given.length > 0 ? AbortSignal.any([deadline, ...given]) : deadline;
}

/** The TLS options for a CA file: Node's `ca` replaces the bundled roots, so they stay trusted beside it. */
export function trusting(ca: string | undefined): { ca?: string[] } {
  return ca ? { ca: [...rootCertificates, ca] } : {};
}

/** Every secret replaced by [redacted]: a message may quote what it was sent. */
export function scrub(text: string, secrets: readonly string[]): string {
  return secrets.reduce((scrubbed, secret) => (secret ? scrubbed.split(secret).join('[redacted]') : scrubbed), text);
}

/** The secrets of one request: the client's, and the credentials of its authorization header. */
export function secretsOf(options: Pick<HttpClientOptions, 'secrets'>, headers: Record<string, string>): string[] {
  const authorization = headers.authorization ?? '';
  const credential = authorization.replace(/^\S+\s+/, '');
  return [...(options.secrets ?? []), authorization, credential].filter((secret) => secret.length > 0);
}

/** The error with its message scrubbed of the secrets (in place: its name, code and cause still say what failed). */
export function scrubbed(error: unknown, secrets: readonly string[]): unknown {
  if (!(error instanceof Error)) return error;
  const message = scrub(error.message, secrets);
  if (message !== error.message) Object.defineProperty(error, 'message', { value: message, configurable: true });
  return error;
}
