// Image references as containerd reads them: github.com/distribution/reference ParseNormalizedNamed
// (normalize.go splitDockerDomain): a first path component is a registry only when it has a "."
// or a ":" or is "localhost" (and is not all lower case otherwise: "Foo/bar" is a host); anything
// else is on docker.io, one-component names under library/; index.docker.io is docker.io. No tag
// and no digest mean ":latest" (reference.TagNameOnly); with a digest, the digest is what is
// pulled (a tag beside it is ignored by containerd's resolver). Pure.

/** distribution/reference regexp.go: the grammar, component by component. */
const DOMAIN_COMPONENT = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const DOMAIN = new RegExp(`^(?:${DOMAIN_COMPONENT}(?:\\.${DOMAIN_COMPONENT})*|\\[[a-fA-F0-9:]+\\])(?::[0-9]+)?$`);
const PATH_COMPONENT = /^[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*$/;
const TAG = /^[\w][\w.-]{0,127}$/;
const DIGEST = /^[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}$/;
/** reference.go NameTotalLengthMax. */
const NAME_TOTAL_LENGTH_MAX = 255;

export const DOCKER_HUB = 'docker.io';

export interface ImageReference {
  /** The registry host, with its port: "docker.io", "127.0.0.1:5000". */
  domain: string;
  /** The repository inside it: "library/nginx". */
  path: string;
  /** The tag or the digest asked for: "latest", "sha256:…". */
  reference: string;
  /** As containerd names it: "docker.io/library/nginx:latest". */
  normalized: string;
}

export type ParsedReference = { ok: true; image: ImageReference } | { ok: false; why: string };

export function parseReference(image: string): ParsedReference {
  let rest = image;
  let digest: string | undefined;
  const at = rest.indexOf('@');
  if (at !== -1) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
    if (!DIGEST.test(digest)) return { ok: false, why: `"${digest}" is not a digest` };
  }
  // A tag is after the last ":" that follows the last "/" (a port's ":" comes before a "/").
  let tag: string | undefined;
  const colon = rest.lastIndexOf(':');
  if (colon > rest.lastIndexOf('/')) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
    if (!TAG.test(tag)) return { ok: false, why: `"${tag}" is not a tag` };
  }
  if (rest === '') return { ok: false, why: 'it names no repository' };
  // ParseNormalizedNamed: a 64-hex name is an image id, not a reference.
  if (/^[a-f0-9]{64}$/.test(rest)) return { ok: false, why: 'it is an image id, not a repository name' };
  const slash = rest.indexOf('/');
  const first = slash === -1 ? '' : rest.slice(0, slash);
  const hasDomain = slash !== -1 && (/[.:]/.test(first) || first === 'localhost' || first.toLowerCase() !== first);
  let domain = hasDomain ? first : DOCKER_HUB;
  let path = hasDomain ? rest.slice(slash + 1) : rest;
  if (domain === 'index.docker.io') domain = DOCKER_HUB;
  if (domain === DOCKER_HUB && !path.includes('/')) path = `library/${path}`;
  if (!DOMAIN.test(domain)) return { ok: false, why: `"${domain}" is not a registry host` };
  if (path.toLowerCase() !== path) return { ok: false, why: 'a repository name must be lowercase' };
  if (!path.split('/').every((component) => PATH_COMPONENT.test(component)))
    return { ok: false, why: `"${path}" is not a repository name` };
  if (`${domain}/${path}`.length > NAME_TOTAL_LENGTH_MAX)
    return { ok: false, why: `the repository name is longer than ${NAME_TOTAL_LENGTH_MAX} characters` };
  const reference = digest ?? tag ?? 'latest';
  const normalized = `${domain}/${path}${digest ? `@${digest}` : `:${reference}`}`;
  return { ok: true, image: { domain, path, reference, normalized } };
}

/**
 * Where the registry API of a domain is served. containerd (remotes/docker/config/hosts.go):
 * docker.io is served by registry-1.docker.io; localhost and loopback addresses speak plain
 * HTTP (docker.MatchLocalhost), as do the hosts the user names (--insecure-registry, containerd's
 * `plain-http`/hosts.toml `http://` server); every other host HTTPS.
 */
export function endpointOf(domain: string, insecureRegistries: readonly string[]): string {
  const host = domain === DOCKER_HUB ? 'registry-1.docker.io' : domain;
  const plain = isLoopback(domain) || insecureRegistries.some((registry) => registryHost(registry) === domain);
  return `${plain ? 'http' : 'https'}://${host}`;
}

/**
 * The host[:port] a --insecure-registry names, written as containerd's hosts.toml writes a server
 * (`http://host:port/`) or bare (#45: `http://host:port/` matched no image's domain).
 */
export function registryHost(registry: string): string {
  return registry
    .trim()
    .replace(/^[a-z][a-z0-9+.-]*:\/\//i, '')
    .replace(/\/+$/, '');
}

/** docker.MatchLocalhost: "localhost", 127.0.0.0/8 and ::1, with or without a port. */
export function isLoopback(domain: string): boolean {
  const host = domain.startsWith('[') ? domain.slice(1, domain.indexOf(']')) : domain.replace(/:\d+$/, '');
  return host === 'localhost' || host === '::1' || /^127(?:\.\d{1,3}){3}$/.test(host);
}
