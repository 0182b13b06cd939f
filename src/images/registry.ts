// Asks a registry whether one manifest exists, as containerd's resolver would fetch it
// (remotes/docker/resolver.go): `HEAD /v2/<name>/manifests/<reference>` with the Accept header
// containerd sends, after the registry's authentication challenge (answers.ts). Its requests go
// out through kguard's HTTP client (http/client.ts: straight, or through the proxy kubectl would
// use), each with a deadline (--request-timeout). Each registry is pinged once (`GET /v2/`, distribution-spec "determining
// support"), so an unreachable one fails once for all its images; tokens are reused per
// repository and credential.
import { networkCause } from '../http/cause.js';
import { httpClient } from '../http/client.js';
import type { HttpAnswer, HttpClient, Method } from '../http/request.js';
import {
  type Asked,
  type Challenge,
  errorsOf,
  type ImageAnswer,
  parseChallenge,
  MAX_BODY_BYTES,
  tokenOf,
  verdictOf,
} from './answers.js';
import type { PullCredential } from './keyring.js';
import { endpointOf, type ImageReference } from './reference.js';

/** containerd remotes/docker/resolver.go Resolve: Docker schema 2, manifest list, OCI manifest, OCI index, anything. */
export const MANIFEST_ACCEPT = [
  'application/vnd.docker.distribution.manifest.v2+json',
  'application/vnd.docker.distribution.manifest.list.v2+json',
  'application/vnd.oci.image.manifest.v1+json',
  'application/vnd.oci.image.index.v1+json',
  '*/*',
].join(', ');

type Ping = { ok: true; challenge?: Challenge } | { ok: false; why: string };

export interface RegistryOptions {
  requestTimeoutMs: number;
  insecureRegistries: readonly string[];
  userAgent: string;
  /** Aborts every request at once (a signal): Ctrl-C is not held up by a registry that never answers. */
  signal?: AbortSignal;
}

export interface Registries {
  /** The verdict for one image, with the credentials the kubelet would try, in its order. */
  ask(image: ImageReference, credentials: readonly PullCredential[]): Promise<ImageAnswer>;
  close(): Promise<void>;
}

/**
 * The registry client. Requests go out straight, or through the proxy kubectl would use
 * (http/client.ts); a black-holed address fails at the deadline, a refused or unresolvable one at once.
 */
export function registries(
  options: RegistryOptions,
  through: HttpClient = httpClient({
    timeoutMs: options.requestTimeoutMs,
    maxBodyBytes: MAX_BODY_BYTES,
    cancel: options.signal,
  }),
): Registries {
  const send = (url: string, method: Method, headers: Record<string, string>): Promise<HttpAnswer> =>
    through.send(url, method, { 'user-agent': options.userAgent, ...headers });

  const ping = pinger(send, options.requestTimeoutMs);
  const token = tokens(send);

  const ask = async (image: ImageReference, credentials: readonly PullCredential[]): Promise<ImageAnswer> => {
    const endpoint = endpointOf(image.domain, options.insecureRegistries);
    const registry = `registry ${image.domain}`;
    try {
      const pinged = await ping(endpoint);
      if (!pinged.ok) return { verdict: 'unknown', why: `${registry}: ${pinged.why}` };
      const url = `${endpoint}/v2/${image.path}/manifests/${image.reference}`;
      const challenge = pinged.challenge;
      if (!challenge) return await manifest(url, {}, 'open', registry);
      // The kubelet tries each matching credential in turn, then none (keyring.go Lookup, then an anonymous pull).
      const attempts: Array<PullCredential | undefined> = credentials.length > 0 ? [...credentials] : [undefined];
      let last: ImageAnswer | undefined;
      for (const [index, credential] of attempts.entries()) {
        const headers = await authorization(challenge, image, credential, index);
        if (headers === undefined) {
          last = {
            verdict: 'unknown',
            why: credential
              ? `${registry}'s token server refuses the pod's pull credentials (${credential.source})`
              : `${registry}'s token server gives no anonymous token, and the pod names no pull credentials for it`,
          };
          continue;
        }
        last = await manifest(
          url,
          { accept: MANIFEST_ACCEPT, ...headers },
          credential ? 'credentials' : 'anonymous',
          registry,
        );
        if (last.verdict !== 'unknown' || !credential) return last;
      }
      return last!;
    } catch (error) {
      return {
        verdict: 'unknown',
        why: `${registry} did not answer (${unanswered(error, options.requestTimeoutMs)})`,
      };
    }
  };

  const authorization = async (
    challenge: Challenge,
    image: ImageReference,
    credential: PullCredential | undefined,
    index: number,
  ): Promise<Record<string, string> | undefined> => {
    if (challenge.scheme === 'basic') return credential ? { authorization: basic(credential) } : {};
    if (challenge.scheme !== 'bearer' || !challenge.params.realm)
      return credential ? { authorization: basic(credential) } : {};
    const bearer = await token(
      challenge,
      `repository:${image.path}:pull`,
      credential,
      credential ? `${index}:${credential.source}` : 'anonymous',
    );
    return bearer ? { authorization: `Bearer ${bearer}` } : undefined;
  };

  const manifest = async (
    url: string,
    headers: Record<string, string>,
    asked: Asked,
    registry: string,
  ): Promise<ImageAnswer> => {
    const withAccept = { accept: MANIFEST_ACCEPT, ...headers };
    const head = await send(url, 'HEAD', withAccept);
    // A HEAD has no body: the 404's error codes come with a GET of the same manifest.
    const errors = head.status === 404 ? errorsOf((await send(url, 'GET', withAccept)).body) : [];
    return verdictOf(head.status, errors, asked, registry);
  };

  return { ask, close: () => through.close() };
}

type Send = (url: string, method: Method, headers: Record<string, string>) => Promise<HttpAnswer>;

/** GET /v2/ of an endpoint, once: whether it speaks the distribution API, and its auth challenge. */
function pinger(send: Send, requestTimeoutMs: number): (endpoint: string) => Promise<Ping> {
  const cache = new Map<string, Promise<Ping>>();
  return (endpoint: string): Promise<Ping> => {
    let known = cache.get(endpoint);
    if (!known) {
      known = send(`${endpoint}/v2/`, 'GET', {}).then(
        (answer): Ping => {
          if (answer.status === 200) return { ok: true };
          const challenge = parseChallenge(headerOf(answer, 'www-authenticate'));
          if (answer.status === 401 && challenge) return { ok: true, challenge };
          return { ok: false, why: `it answers ${answer.status} to GET /v2/ (not an OCI distribution API)` };
        },
        (error: unknown): Ping => ({
          ok: false,
          why: `it cannot be reached from here (${unanswered(error, requestTimeoutMs)})`,
        }),
      );
      cache.set(endpoint, known);
    }
    return known;
  };
}

/** A registry token, once per realm, service, scope and credential. */
function tokens(send: Send) {
  const cache = new Map<string, Promise<string | undefined>>();
  return (challenge: Challenge, scope: string, credential: PullCredential | undefined, key: string) => {
    const cacheKey = `${challenge.params.realm}|${challenge.params.service}|${scope}|${key}`;
    let known = cache.get(cacheKey);
    if (!known) {
      const realm = new URL(challenge.params.realm ?? '');
      if (challenge.params.service) realm.searchParams.set('service', challenge.params.service);
      realm.searchParams.set('scope', scope);
      known = send(realm.toString(), 'GET', credential ? { authorization: basic(credential) } : {}).then((answer) =>
        answer.status === 200 ? tokenOf(answer.body) : undefined,
      );
      cache.set(cacheKey, known);
    }
    return known;
  };
}

function basic(credential: PullCredential): string {
  return `Basic ${Buffer.from(`${credential.username}:${credential.password}`, 'utf8').toString('base64')}`;
}

function headerOf(answer: HttpAnswer, name: string): string | undefined {
  const value = answer.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Why a registry request got no answer (http/cause.ts), its deadline the --request-timeout. */
function unanswered(error: unknown, deadlineMs: number): string {
  return networkCause(error, `no answer within ${Math.round(deadlineMs / 100) / 10} s, the --request-timeout`);
}
