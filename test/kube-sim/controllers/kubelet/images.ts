// Image references and the simulated registry. Parsing follows docker/distribution's reference
// grammar closely enough to reject what the kubelet rejects (InvalidImageName); pull failures are
// worded like containerd behind a current kubelet. The kubelet's CRI client drops the gRPC
// `rpc error: code = Unknown desc = ` prefix of code-Unknown errors only (k8s.io/cri-client
// remote_image.go pullImageV1, v0.37.2); containerd answers a reference or repository that is not
// found with code NotFound (errdefs.ToGRPC), so those keep `rpc error: code = NotFound desc = `
// in the waiting message, the event and the ImagePullBackOff text, as a v1.37.2 kubelet with
// containerd 1.6.20 showed (fixtures/README.md).

import { createHash } from 'node:crypto';
import type { ImageAvailability, ImageBehaviour, RegistryEntry, Scenario, TokenServerFailure } from '../../scenario.js';

export interface ImageRef {
  /** As written in the pod spec. */
  written: string;
  domain: string;
  /** Repository path inside the registry ('library/nginx'). */
  path: string;
  tag?: string;
  digest?: string;
  /** docker.io/library/nginx:1.25 — what containerd reports as the image. */
  normalized: string;
}

const COMPONENT = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;
const DOMAIN =
  /^(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)(?:\.(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?))*(?::[0-9]+)?$/;
const TAG = /^[\w][\w.-]{0,127}$/;
const DIGEST = /^[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[a-fA-F0-9]{32,}$/;

/** Parses like ParseNormalizedNamed; returns the error text the kubelet would wrap. */
export function parseImageRef(written: string): ImageRef | { error: string } {
  let rest = written;
  let digest: string | undefined;
  const at = rest.indexOf('@');
  if (at >= 0) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
    if (!DIGEST.test(digest)) return { error: 'invalid reference format' };
  }
  let tag: string | undefined;
  const lastSlash = rest.lastIndexOf('/');
  const colon = rest.indexOf(':', lastSlash + 1);
  if (colon >= 0) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
    if (!TAG.test(tag)) return { error: 'invalid reference format' };
  }
  if (rest === '') return { error: 'invalid reference format' };
  const parts = rest.split('/');
  let domain = 'docker.io';
  const first = parts[0]!;
  if (
    parts.length > 1 &&
    (first.includes('.') || first.includes(':') || first === 'localhost' || first !== first.toLowerCase())
  ) {
    domain = first;
    parts.shift();
    if (!DOMAIN.test(domain)) return { error: 'invalid reference format' };
  }
  if (domain === 'index.docker.io') domain = 'docker.io';
  if (domain === 'docker.io' && parts.length === 1) parts.unshift('library');
  const path = parts.join('/');
  if (path !== path.toLowerCase()) {
    return parts.every((part) => COMPONENT.test(part.toLowerCase()))
      ? { error: 'invalid reference format: repository name must be lowercase' }
      : { error: 'invalid reference format' };
  }
  if (!parts.every((part) => COMPONENT.test(part))) return { error: 'invalid reference format' };
  if (!tag && !digest) tag = 'latest';
  const normalized = `${domain}/${path}${tag ? `:${tag}` : ''}${digest ? `@${digest}` : ''}`;
  return { written, domain, path, tag, digest, normalized };
}

export type PullOutcome = { ok: true; imageID: string; sizeBytes: number } | { ok: false; error: string };

export class SimulatedRegistry {
  private readonly attempts = new Map<string, number>();

  constructor(private readonly scenario: Scenario) {}

  pullDurationMs(ref: ImageRef): number {
    return this.behaviourOf(ref).pullMs ?? this.scenario.timing.pullMs;
  }

  pull(ref: ImageRef): PullOutcome {
    const behaviour = this.behaviourOf(ref);
    const attempt = (this.attempts.get(ref.normalized) ?? 0) + 1;
    this.attempts.set(ref.normalized, attempt);
    if (behaviour.tokenServer && attempt <= (behaviour.tokenFailures ?? 1)) {
      return { ok: false, error: `${unpack(ref)}: ${resolve(ref)}: ${tokenFailure(ref, behaviour.tokenServer)}` };
    }
    if (attempt <= (behaviour.rateLimitedPulls ?? 0)) return { ok: false, error: rateLimited(ref) };
    if (attempt <= (behaviour.blobNotFoundPulls ?? 0)) return { ok: false, error: blobNotFound(ref) };
    const state: ImageAvailability = behaviour.state ?? 'present';
    switch (state) {
      case 'present':
        return {
          ok: true,
          imageID: imageIdOf(ref),
          sizeBytes: behaviour.sizeBytes ?? this.scenario.defaultImageSizeBytes,
        };
      case 'missing':
        return { ok: false, error: notFound(`${unpack(ref)}: ${resolve(ref)}: ${ref.normalized}: not found`) };
      case 'auth-required':
        return { ok: false, error: `${unpack(ref)}: ${resolve(ref)}: ${authError(ref)}` };
      case 'no-repository':
        // Docker Hub does not tell a missing repository from a private one.
        if (ref.domain === 'docker.io')
          return { ok: false, error: `${unpack(ref)}: ${resolve(ref)}: ${authError(ref)}` };
        return { ok: false, error: notFound(`${unpack(ref)}: ${resolve(ref)}: ${ref.normalized}: not found`) };
      case 'unreachable': {
        const host = registryHost(ref);
        return {
          ok: false,
          error: `${unpack(ref)}: ${resolve(ref)}: failed to do request: Head "https://${host}/v2/${ref.path}/manifests/${ref.digest ?? ref.tag}": dial tcp: lookup ${host} on 172.18.0.1:53: no such host`,
        };
      }
    }
  }

  private behaviourOf(ref: ImageRef): ImageBehaviour {
    const entry = this.lookup(ref);
    if (entry === undefined) return { state: this.scenario.defaultImage };
    return typeof entry === 'string' ? { state: entry } : entry;
  }

  /** Exact ref as written, normalized ref, repository (any tag), then `*` patterns in order. */
  private lookup(ref: ImageRef): RegistryEntry | undefined {
    const registry = this.scenario.registry;
    const repositoryWritten = ref.written.replace(/@.*$/, '').replace(/:[^/:]*$/, '');
    const repositoryNormalized = `${ref.domain}/${ref.path}`;
    for (const key of [ref.written, ref.normalized, repositoryWritten, repositoryNormalized]) {
      if (Object.hasOwn(registry, key)) return registry[key];
    }
    for (const [pattern, entry] of Object.entries(registry)) {
      if (!pattern.includes('*')) continue;
      const regex = new RegExp(`^${pattern.split('*').map(escapeRegex).join('.*')}$`);
      if (regex.test(ref.written) || regex.test(ref.normalized)) return entry;
    }
    return undefined;
  }
}

export function imageIdOf(ref: ImageRef): string {
  return `${ref.domain}/${ref.path}@sha256:${sha256(`image:${ref.normalized}`)}`;
}

/** A containerd error of code NotFound, as the kubelet passes it on (see the header). */
function notFound(message: string): string {
  return `rpc error: code = NotFound desc = ${message}`;
}

function unpack(ref: ImageRef): string {
  return `failed to pull and unpack image "${ref.normalized}"`;
}

function resolve(ref: ImageRef): string {
  return `failed to resolve reference "${ref.normalized}"`;
}

function authError(ref: ImageRef): string {
  // Docker Hub answers a private or non-existent repository the same way.
  if (ref.domain === 'docker.io') {
    return 'pull access denied, repository does not exist or may require authorization: server message: insufficient_scope: authorization failed';
  }
  const scope = encodeURIComponent(`repository:${ref.path}:pull`);
  return `failed to authorize: failed to fetch anonymous token: unexpected status from GET request to https://${ref.domain}/token?scope=${scope}&service=${ref.domain}: 401 Unauthorized`;
}

/** The anonymous token request as containerd sends it (auth/fetch.go FetchToken: realm?scope=…&service=…). */
function tokenUrl(ref: ImageRef): string {
  const scope = encodeURIComponent(`repository:${ref.path}:pull`);
  return ref.domain === 'docker.io'
    ? `https://auth.docker.io/token?scope=${scope}&service=registry.docker.io`
    : `https://${ref.domain}/token?scope=${scope}&service=${ref.domain}`;
}

/**
 * containerd remotes/docker/authorizer.go: `failed to authorize: failed to fetch anonymous token:
 * <err>`, where FetchToken returns the HTTP client's error unwrapped (Go's url.Error: `Get "<url>":
 * …`) or, for a status of 400 and above, remotes/errors ErrUnexpectedStatus (`unexpected status
 * from GET request to <url>: 503 Service Unavailable`).
 */
function tokenFailure(ref: ImageRef, failure: TokenServerFailure): string {
  const url = tokenUrl(ref);
  const host = new URL(url).host;
  const cause = {
    dns: `Get "${url}": dial tcp: lookup ${host} on 172.18.0.1:53: no such host`,
    'tls-timeout': `Get "${url}": net/http: TLS handshake timeout`,
    '503': `unexpected status from GET request to ${url}: 503 Service Unavailable`,
    '429': `unexpected status from GET request to ${url}: 429 Too Many Requests`,
  }[failure];
  return `failed to authorize: failed to fetch anonymous token: ${cause}`;
}

function rateLimited(ref: ImageRef): string {
  return (
    `${unpack(ref)}: failed to copy: httpReadSeeker: failed open: unexpected status code ` +
    `https://${registryHost(ref)}/v2/${ref.path}/manifests/sha256:${sha256(`manifest:${ref.normalized}`)}: ` +
    '429 Too Many Requests - Server message: toomanyrequests: You have reached your unauthenticated pull rate limit. https://www.docker.com/increase-rate-limit'
  );
}

/**
 * The tag resolves, but a layer it names is not there yet: containerd core/remotes/docker/fetcher.go
 * (a 404 on every host's /blobs/<digest> becomes `could not fetch content descriptor <digest>
 * (<media type>) from remote: not found`), wrapped by httpreadseeker.go (`httpReadSeeker: failed
 * open: …`) and the content copy (`failed to copy: …`). Seen after a push to a geo-replicated
 * registry or behind a mirror that has the manifest before the blobs (containerd#10749, #2840).
 */
function blobNotFound(ref: ImageRef): string {
  return (
    `${unpack(ref)}: failed to copy: httpReadSeeker: failed open: could not fetch content descriptor ` +
    `sha256:${sha256(`layer:${ref.normalized}`)} (application/vnd.oci.image.layer.v1.tar+gzip) from remote: not found`
  );
}

function registryHost(ref: ImageRef): string {
  return ref.domain === 'docker.io' ? 'registry-1.docker.io' : ref.domain;
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function escapeRegex(text: string): string {
  return text.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
}

/** Go's time.Duration String() after Truncate(time.Millisecond): 523ms, 1.2s, 1m2.5s. */
export function goDuration(ms: number): string {
  const total = Math.max(0, Math.floor(ms));
  if (total === 0) return '0s';
  if (total < 1000) return `${total}ms`;
  const hours = Math.floor(total / 3_600_000);
  const minutes = Math.floor((total % 3_600_000) / 60_000);
  const seconds = (total % 60_000) / 1000;
  const secondsText = `${Number(seconds.toFixed(3))}s`;
  if (hours > 0) return `${hours}h${minutes}m${secondsText}`;
  if (minutes > 0) return `${minutes}m${secondsText}`;
  return secondsText;
}
