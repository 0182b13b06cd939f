// What an image pull error says about the image: gone for good (the release is broken), passing
// (the registry or the network will recover), or unknown. Pure. Texts and sources are listed in
// test/fixtures/README.md ("containerd pull error texts"); they are matched as substrings because the
// kubelet may wrap them in `rpc error: code = X desc = ` (before 1.28) or, from 1.32, in
// `Back-off pulling image "…": ErrImagePull: `.

// The registry itself says the image or the right to pull it does not exist.
const FINAL: readonly RegExp[] = [
  /code = NotFound/, // containerd resolver: tag or repository not found
  /: not found\b/, // `failed to resolve reference "…": docker.io/library/nginx:1.99: not found`
  /manifest unknown/i, // distribution spec error code MANIFEST_UNKNOWN
  /repository does not exist/i, // Docker Hub: `pull access denied, repository does not exist or may require authorization`
  /pull access denied/i,
  /insufficient_scope/i,
  /requested access to the resource is denied/i,
  /\b401 Unauthorized\b/i, // token servers and basic-auth registries
  /\b403 Forbidden\b/i, // ghcr.io without a token
  /unauthorized: authentication required/i,
  /failed to authorize/i,
  /no match for platform in manifest/i, // the image exists, but not for this node's architecture
];
import type { PullCause } from '../model/findings.js';

// The registry or the path to it is in trouble; a retry may succeed.
const TRANSIENT: readonly RegExp[] = [
  /\b429\b|toomanyrequests|too many requests|rate limit/i, // Docker Hub pull rate limit
  /no such host/i, // DNS (also a typo in the registry host: the wait then ends at --timeout)
  /i\/o timeout|TLS handshake timeout|context deadline exceeded|code = DeadlineExceeded/i,
  /connection reset by peer|connection refused|no route to host|network is unreachable/i,
  /code = Canceled|context canceled/i, // a pull the kubelet or containerd cancelled
  /\bEOF\b/, // `failed to do request: … EOF`
  /\b50[0234]\b|Internal Server Error|Bad Gateway|Service Unavailable|Gateway Timeout/i,
  /because the registry is unavailable/i, // kubelet evalCRIPullErr, CRI-O's RegistryUnavailable
];

/**
 * containerd remotes/docker/authorizer.go wraps whatever went wrong at the registry's token
 * server in `failed to authorize: failed to fetch anonymous token: <cause>` (or `oauth token`):
 * the HTTP client's own error (`Get "<url>": dial tcp: lookup …: no such host`, `net/http: TLS
 * handshake timeout`) or, from status 400 up, `unexpected status from GET request to <url>: 503
 * Service Unavailable`. Only the cause tells a refusal (401, 403) from a blip (DNS, TLS, 5xx, 429).
 */
const TOKEN_FETCH = /failed to fetch (?:anonymous|oauth) token: ([\s\S]*)$/;
const TOKEN_REFUSED = /\b40[13]\b|Unauthorized|Forbidden|denied/i;

/**
 * The tag resolved, but content its manifest names is not there: containerd
 * core/remotes/docker/fetcher.go turns a 404 on every host's /blobs/<digest> into `could not fetch
 * content descriptor <digest> (<media type>) from remote: not found` (a child manifest fetched by
 * digest: `content at <url> not found: not found`), which httpreadseeker.go wraps as
 * `httpReadSeeker: failed open: …` (`httpReaderSeeker` before containerd 1.5). Right after a push
 * this is a geo-replicated registry or a mirror still catching up (containerd#10749, #2840): it
 * may pass, so it gets a grace before it is final. Checked before FINAL, whose `: not found` and
 * `code = NotFound` it also carries.
 */
const CONTENT_NOT_FOUND =
  /httpRead(?:er)?Seeker: failed open: (?:could not fetch content descriptor \S+ \([^)]*\) from remote|content at \S+ not found): not found/;

/** Judges one pull error text. A final answer wins over a transient one found in the same text. */
export function judgePullError(text: string | undefined): PullCause {
  if (!text) return 'unknown';
  if (CONTENT_NOT_FOUND.test(text)) return 'lag';
  const tokenFailure = TOKEN_FETCH.exec(text)?.[1];
  if (tokenFailure !== undefined) {
    if (TOKEN_REFUSED.test(tokenFailure)) return 'final';
    return TRANSIENT.some((pattern) => pattern.test(tokenFailure)) ? 'transient' : 'unknown';
  }
  if (FINAL.some((pattern) => pattern.test(text))) return 'final';
  if (TRANSIENT.some((pattern) => pattern.test(text))) return 'transient';
  return 'unknown';
}

/** The pull error inside a waiting message, without the kubelet's and containerd's wrappers. */
export function pullErrorGist(message: string): string {
  let text = message;
  // 1.32 ImagePullBackOff: `Back-off pulling image "x": ErrImagePull: <error>`.
  text = text.replace(/^Back-off pulling image "[^"]*"(?:: \w+: |$)/, '');
  text = text.replace(/^rpc error: code = \w+ desc = /, '');
  // containerd: `failed to pull and unpack image "…": failed to resolve reference "…": <reason>`.
  text = text.replace(/^failed to pull and unpack image "[^"]*": /, '');
  text = text.replace(/^failed to resolve reference "[^"]*": /, '');
  return text.trim();
}

/** `Back-off pulling image "x"` as ≤1.31 kubelets write it: the message names no cause. */
export function isBareBackOff(message: string): boolean {
  return /^Back-off pulling image "[^"]*"$/.test(message.trim());
}
