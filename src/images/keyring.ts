// Which pull credentials the kubelet would use for an image, chosen as it chooses them
// (kubernetes pkg/credentialprovider/keyring.go, BasicDockerKeyring): each key of a
// `.dockerconfigjson` ("auths") or `.dockercfg` Secret is a schemeless URL glob ("registry.io",
// "*.azurecr.io", "quay.io/team", "https://index.docker.io/v1/"); the keys are sorted in reverse
// so the most specific match comes first; a key matches an image when both have as many host
// parts, each part matches (filepath.Match), the ports are equal and the key's path is a prefix
// of the image's. Docker Hub images also take the "index.docker.io" key (isDefaultRegistryMatch).
// The values never leave this module but as headers of a request to the registry. Pure.

/** One username and password (or identity token) of a pull Secret. Never printed. */
export interface PullCredential {
  username: string;
  password: string;
  /** Which Secret it came from, and its key: said in messages ("secret regcred, key registry.io"). */
  source: string;
}

export interface Keyring {
  /** Keys (as keyring.go Add stores them: host plus path), most specific first. */
  index: string[];
  credentials: Map<string, PullCredential[]>;
}

/** `kubernetes.io/dockerconfigjson` (`.dockerconfigjson`) and `kubernetes.io/dockercfg` (`.dockercfg`). */
export const PULL_SECRET_KEYS: Readonly<Record<string, { key: string; auths: boolean }>> = {
  'kubernetes.io/dockerconfigjson': { key: '.dockerconfigjson', auths: true },
  'kubernetes.io/dockercfg': { key: '.dockercfg', auths: false },
};

interface SecretLike {
  metadata: { name: string };
  type?: string;
  data?: Record<string, string>;
}

/** The entries of one pull Secret; none when it is of another type or unreadable (the kubelet skips it too). */
export function credentialsOfSecret(secret: SecretLike): Array<[string, PullCredential]> {
  const kind = PULL_SECRET_KEYS[secret.type ?? ''];
  const encoded = kind ? secret.data?.[kind.key] : undefined;
  if (!kind || encoded === undefined) return [];
  let config: unknown;
  try {
    config = JSON.parse(Buffer.from(encoded, 'base64').toString('utf8'));
  } catch {
    return [];
  }
  const entries = kind.auths ? (config as { auths?: unknown } | null)?.auths : config;
  if (!entries || typeof entries !== 'object') return [];
  const found: Array<[string, PullCredential]> = [];
  for (const [location, value] of Object.entries(entries as Record<string, unknown>)) {
    const credential = credentialOf(value, `secret ${secret.metadata.name}, key ${location}`);
    if (credential) found.push([location, credential]);
  }
  return found;
}

/** credentialprovider/config.go DockerConfigEntry.UnmarshalJSON: `auth` (base64 "user:password") wins over username/password. */
function credentialOf(value: unknown, source: string): PullCredential | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const entry = value as { username?: unknown; password?: unknown; auth?: unknown; identitytoken?: unknown };
  let username = typeof entry.username === 'string' ? entry.username : '';
  let password = typeof entry.password === 'string' ? entry.password : '';
  if (typeof entry.auth === 'string' && entry.auth !== '') {
    const decoded = Buffer.from(entry.auth, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon === -1) return undefined;
    username = decoded.slice(0, colon);
    password = decoded.slice(colon + 1);
  }
  if (username === '' && typeof entry.identitytoken === 'string' && entry.identitytoken !== '')
    return { username: '<token>', password: entry.identitytoken, source };
  if (username === '' && password === '') return undefined;
  return { username, password, source };
}

/** keyring.go Add: scheme dropped, /v1/ and /v2/ paths are the host, keys deduplicated and reverse-sorted. */
export function makeKeyring(entries: ReadonlyArray<readonly [string, PullCredential]>): Keyring {
  const credentials = new Map<string, PullCredential[]>();
  for (const [location, credential] of entries) {
    const withScheme = /^https?:\/\//.test(location) ? location : `https://${location}`;
    let parsed: URL;
    try {
      parsed = new URL(withScheme);
    } catch {
      continue;
    }
    let path = parsed.pathname;
    if (path.startsWith('/v2/') || path.startsWith('/v1/')) path = path.slice(3);
    const key = path.length > 0 && path !== '/' ? `${parsed.host}${path}` : parsed.host;
    credentials.set(key, [...(credentials.get(key) ?? []), credential]);
  }
  const index = [...credentials.keys()].sort().reverse();
  return { index, credentials };
}

const DEFAULT_REGISTRY_HOST = 'index.docker.io';

/** keyring.go Lookup: every matching key's credentials, most specific first. `image` is normalized without tag ("docker.io/library/nginx"). */
export function lookup(keyring: Keyring, image: string): PullCredential[] {
  const found = keyring.index.filter((key) => urlsMatch(key, image)).flatMap((key) => keyring.credentials.get(key)!);
  if (found.length > 0) return found;
  if (isDefaultRegistryMatch(image)) return keyring.credentials.get(DEFAULT_REGISTRY_HOST) ?? [];
  return [];
}

function isDefaultRegistryMatch(image: string): boolean {
  const [first, ...rest] = image.split('/');
  if (!first) return false;
  if (rest.length === 0) return true;
  if (first === 'docker.io' || first === DEFAULT_REGISTRY_HOST) return true;
  return !/[.:]/.test(first);
}

/** keyring.go URLsMatch over schemeless URLs. */
export function urlsMatch(glob: string, target: string): boolean {
  const globUrl = schemeless(glob);
  const targetUrl = schemeless(target);
  if (!globUrl || !targetUrl) return false;
  if (globUrl.port !== targetUrl.port) return false;
  if (globUrl.parts.length !== targetUrl.parts.length) return false;
  if (!targetUrl.path.startsWith(globUrl.path)) return false;
  return globUrl.parts.every((part, index) => globMatch(part, targetUrl.parts[index]!));
}

function schemeless(text: string): { parts: string[]; port: string; path: string } | undefined {
  const slash = text.indexOf('/');
  const host = slash === -1 ? text : text.slice(0, slash);
  const path = slash === -1 ? '' : text.slice(slash);
  if (host === '') return undefined;
  // net.SplitHostPort: a port only after a host (or a bracketed IPv6 address).
  const port = /^(.*):(\d*)$/.exec(host);
  const name = port && !port[1]!.includes(':') ? port[1]! : host;
  return { parts: name.split('.'), port: port && !port[1]!.includes(':') ? port[2]! : '', path };
}

/** Go's filepath.Match for one host part: `*` (any run), `?` (one character), `[...]` classes. */
function globMatch(pattern: string, text: string): boolean {
  let source = '';
  for (let index = 0; index < pattern.length; index++) {
    const char = pattern[index]!;
    if (char === '*') source += '.*';
    else if (char === '?') source += '.';
    else if (char === '[') {
      const end = pattern.indexOf(']', index + 1);
      if (end === -1) return false;
      const body = pattern.slice(index + 1, end).replace(/^\^/, '!');
      source += `[${body.startsWith('!') ? `^${body.slice(1)}` : body}]`;
      index = end;
    } else if (char === '\\' && index + 1 < pattern.length) source += `\\${pattern[++index]}`;
    else source += char.replace(/[.+^${}()|\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`).test(text);
}
