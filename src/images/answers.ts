// What a registry's answers mean, read as the OCI distribution spec writes them. Pure.
//
// - Authentication: a 401 carries `WWW-Authenticate: Basic realm="…"` or `Bearer realm="…",
//   service="…",scope="repository:<name>:pull"` (distribution docs/spec/auth/token.md); a Bearer
//   realm answers a GET with `?service=…&scope=…` (Basic credentials when there are any) with
//   JSON holding `token` (or its OAuth2 name `access_token`).
// - A manifest: `HEAD /v2/<name>/manifests/<reference>` answers 200 when it exists, 404 when not;
//   a 404's body (to a GET) names why: MANIFEST_UNKNOWN (no such tag or digest) or NAME_UNKNOWN
//   (no such repository) (distribution-spec spec.md, "Error Codes").

/** Error bodies and token answers are small: nothing more is read (the HTTP client cuts a body there). */
export const MAX_BODY_BYTES = 64 * 1024;

export interface Challenge {
  scheme: 'basic' | 'bearer' | 'other';
  params: Record<string, string>;
}

/** The first challenge of a WWW-Authenticate header (RFC 7235: scheme, then auth-params, quoted or not). */
export function parseChallenge(header: string | undefined): Challenge | undefined {
  if (!header) return undefined;
  const match = /^\s*([A-Za-z][\w-]*)\s*(.*)$/s.exec(header);
  if (!match) return undefined;
  const name = match[1]!.toLowerCase();
  const params: Record<string, string> = {};
  const pattern = /([\w-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^,\s]*))\s*,?\s*/gy;
  const rest = match[2]!;
  pattern.lastIndex = 0;
  for (let found = pattern.exec(rest); found; found = pattern.exec(rest)) {
    params[found[1]!.toLowerCase()] = found[2] !== undefined ? found[2].replace(/\\(.)/g, '$1') : found[3]!;
    if (pattern.lastIndex >= rest.length) break;
  }
  return { scheme: name === 'basic' ? 'basic' : name === 'bearer' ? 'bearer' : 'other', params };
}

/** The token of a token server's JSON answer, or undefined. */
export function tokenOf(body: string): string | undefined {
  try {
    const parsed = JSON.parse(body) as { token?: unknown; access_token?: unknown };
    const token = typeof parsed.token === 'string' && parsed.token ? parsed.token : parsed.access_token;
    return typeof token === 'string' && token !== '' ? token : undefined;
  } catch {
    return undefined;
  }
}

export interface RegistryError {
  code: string;
  message: string;
}

/** The `errors` of a registry's JSON error body ({"errors":[{"code","message","detail"}]}). */
export function errorsOf(body: string): RegistryError[] {
  try {
    const parsed = JSON.parse(body) as { errors?: unknown };
    if (!Array.isArray(parsed.errors)) return [];
    return parsed.errors.flatMap((error: { code?: unknown; message?: unknown }) =>
      typeof error?.code === 'string'
        ? [{ code: plain(error.code), message: typeof error.message === 'string' ? plain(error.message) : '' }]
        : [],
    );
  } catch {
    return [];
  }
}

/** How the manifest request was made: with the pod's credentials, or anonymously to a registry that asks for none or hands out anonymous tokens. */
export type Asked = 'credentials' | 'open' | 'anonymous';

export type ImageAnswer =
  | { verdict: 'exists' }
  | { verdict: 'missing'; answer: string }
  | { verdict: 'unknown'; why: string };

/**
 * The verdict of a manifest request's answer. A 404 is an answer only when the request could see
 * the image: with the pod's credentials, from a registry open to all, or, anonymously,
 * MANIFEST_UNKNOWN (the repository was readable, the tag is not there). An anonymous NAME_UNKNOWN
 * or bare 404 may hide a private repository the nodes' own credentials can read: "cannot know".
 */
export function verdictOf(
  status: number,
  errors: readonly RegistryError[],
  asked: Asked,
  registry: string,
): ImageAnswer {
  if (status >= 200 && status < 300) return { verdict: 'exists' };
  const said =
    errors.length > 0 ? errors.map(({ code, message }) => `${code}${message ? ` (${message})` : ''}`).join(', ') : '';
  if (status === 404) {
    const answer = `${registry} answers ${said || '404 Not Found'}`;
    if (asked !== 'anonymous' || errors.some((error) => error.code === 'MANIFEST_UNKNOWN'))
      return {
        verdict: 'missing',
        answer: asked === 'credentials' ? `${answer}, to the pod's pull credentials` : answer,
      };
    return {
      verdict: 'unknown',
      why: `${registry} answers ${said || '404 Not Found'} to an anonymous request, and the pod names no pull credentials for it (the nodes may have their own)`,
    };
  }
  if (status === 401 || status === 403)
    return {
      verdict: 'unknown',
      why:
        asked === 'credentials'
          ? `${registry} refuses the pod's pull credentials (${status}${said ? ` ${said}` : ''})`
          : `${registry} wants credentials (${status}${said ? ` ${said}` : ''}) and the pod names none for it (the nodes may have their own, or a credential provider)`,
    };
  if (status === 429) return { verdict: 'unknown', why: `${registry} limits the requests (429 Too Many Requests)` };
  return { verdict: 'unknown', why: `${registry} answers ${status}${said ? ` ${said}` : ''}` };
}

/** A registry's words in one short line: no control characters (terminal escapes), at most 200 characters. */
function plain(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ').slice(0, 200);
}
