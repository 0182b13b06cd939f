// Why a request over the network got no answer, in a few words, for every client kguard has:
// Node's http and https (the image check's registries, --analysis's Prometheus), fetch (a `-f URL`:
// undici's "fetch failed", with the reason on `cause`), and Bun's (the release executables: the
// code on the error itself, the URL as `path`). One reading, so the three say the same thing of
// the same failure.

/** undici's own deadlines (connect, headers, body), said as the caller's deadline is. */
const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/** What Node's socket errors carry beside the message (net.js, dns.js). */
interface SocketError {
  code?: unknown;
  address?: unknown;
  port?: unknown;
  hostname?: unknown;
  path?: unknown;
}

/**
 * `error` in a few words: `deadline` when the request ran out of time (the caller says whose
 * deadline it was), `stopped` when it was aborted (a client whose only signal is its deadline
 * says the deadline again), else the socket's own failure: refused (and by which address), a host
 * name that does not resolve, or its code and message.
 */
export function networkCause(error: unknown, deadline: string, stopped = 'stopped: the run was cancelled'): string {
  const named = error as { name?: unknown; code?: unknown } | undefined;
  if (named?.name === 'TimeoutError' || TIMEOUT_CODES.has(String(named?.code))) return deadline;
  if (named?.name === 'AbortError') return stopped;
  // fetch says only "fetch failed"; the reason is its cause.
  const behind = error instanceof Error && error.cause !== undefined ? describe(error.cause)?.slice(0, 300) : undefined;
  if (behind) return behind;
  // Bun's fetch puts the code on the error itself, and the URL as `path`.
  const { code, path } = (error ?? {}) as SocketError;
  if (typeof code === 'string' && typeof path === 'string' && URL.canParse(path)) {
    const url = new URL(path);
    if (code === 'ECONNREFUSED') return `connection refused by ${url.host}`;
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `host name ${url.hostname} does not resolve (${code})`;
    return `${code} ${url.host}`;
  }
  // A socket's message is short; anything else is cut, not quoted whole.
  return describe(error)?.slice(0, 300) ?? 'unknown error';
}

function describe(error: unknown): string | undefined {
  if (!(error instanceof Error)) return typeof error === 'string' && error !== '' ? error : undefined;
  if (error instanceof AggregateError && error.errors.length > 0) {
    // One failure per address tried (IPv6, then IPv4): each, once.
    const each = [...new Set(error.errors.map(describe).filter((text): text is string => Boolean(text)))];
    if (each.length > 0) return each.join('; ');
  }
  const { code, address, port, hostname } = error as SocketError;
  if (code === 'ECONNREFUSED')
    return typeof address === 'string'
      ? `connection refused by ${address}${port ? `:${port}` : ''}`
      : 'connection refused';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    return `${typeof hostname === 'string' ? `host name ${hostname}` : 'its host name'} does not resolve (${code})`;
  const message = error.message;
  if (typeof code === 'string' && message) return message.includes(code) ? message : `${code}: ${message}`;
  return (typeof code === 'string' ? code : message) || describe(error.cause);
}
