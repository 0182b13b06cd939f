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
 * says the deadline again), else the socket's failure in plain words and then its own (refused,
 * and by which address; a host name that does not resolve, and which), or its code and message.
 */
export function networkCause(error: unknown, deadline: string, stopped = 'stopped: the run was cancelled'): string {
  const named = error as { name?: unknown; code?: unknown } | undefined;
  if (named?.name === 'TimeoutError' || TIMEOUT_CODES.has(String(named?.code))) return deadline;
  if (named?.name === 'AbortError') return stopped;
  // A socket's words are short; anything else is cut, not quoted whole.
  return (socketFailure(error) ?? 'unknown error').slice(0, 300);
}

function socketFailure(error: unknown): string | undefined {
  // fetch says only "fetch failed"; the reason is its cause.
  const behind = error instanceof Error && error.cause !== undefined ? describe(error.cause) : undefined;
  if (behind) return behind;
  // Bun's fetch puts the code on the error itself, and the URL as `path`.
  const { code, path } = (error ?? {}) as SocketError;
  if (typeof code === 'string' && typeof path === 'string' && URL.canParse(path))
    return inPlainWords(code, `${code} ${new URL(path).host}`);
  return describe(error);
}

/** What a socket error's code means, said before the socket's own words. */
const PLAIN_WORDS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ENOTFOUND: 'host name does not resolve',
  EAI_AGAIN: 'host name does not resolve',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
};

/** "connection refused: connect ECONNREFUSED 127.0.0.1:9": the meaning, then the socket's words (its code and address). */
function inPlainWords(code: string, socketWords: string): string {
  const plain = Object.hasOwn(PLAIN_WORDS, code) ? PLAIN_WORDS[code] : undefined;
  return plain ? `${plain}: ${socketWords}` : socketWords;
}

function describe(error: unknown): string | undefined {
  if (!(error instanceof Error)) return typeof error === 'string' && error !== '' ? error : undefined;
  if (error instanceof AggregateError && error.errors.length > 0) {
    // One failure per address tried (IPv6, then IPv4): each, once.
    const each = [...new Set(error.errors.map(describe).filter((text): text is string => Boolean(text)))];
    if (each.length > 0) return each.join('; ');
  }
  const { code, address, port, hostname } = error as SocketError;
  const message = error.message;
  if (typeof code !== 'string') return message || describe(error.cause);
  // Node's own words name the code and where ("connect ECONNREFUSED 127.0.0.1:9", "getaddrinfo
  // ENOTFOUND registry.example"); words without the code get it, and the address when known.
  return inPlainWords(code, socketWords(code, message, address, port, hostname));
}

function socketWords(code: string, message: string, address: unknown, port: unknown, hostname: unknown): string {
  if (message.includes(code)) return message;
  const where = typeof address === 'string' ? `${address}${port ? `:${port}` : ''}` : hostname;
  if (typeof where === 'string' && where !== '') return `${code} ${where}${message ? ` (${message})` : ''}`;
  return message ? `${code}: ${message}` : code;
}
