// Pull error texts from public reports (test/fixtures/README.md, "containerd pull error texts").
import { describe, expect, it } from 'vitest';
import { judgePullError, pullErrorGist } from '../../src/classify/pull-errors.js';

describe('judgePullError', () => {
  it.each([
    [
      'rpc error: code = NotFound desc = failed to pull and unpack image "docker.io/library/nginx:1.17.99": failed to resolve reference "docker.io/library/nginx:1.17.99": docker.io/library/nginx:1.17.99: not found',
      'final',
    ],
    [
      'failed to pull and unpack image "docker.io/library/xxxxxnginx:1.17": failed to resolve reference "docker.io/library/xxxxxnginx:1.17": pull access denied, repository does not exist or may require authorization: server message: insufficient_scope: authorization failed',
      'final',
    ],
    [
      'failed to resolve reference "ghcr.io/acme/app:1": failed to authorize: failed to fetch anonymous token: unexpected status from GET request to https://ghcr.io/token?scope=repository%3Aacme%2Fapp%3Apull&service=ghcr.io: 401 Unauthorized',
      'final',
    ],
    [
      'Error response from daemon: manifest for registry.example.com/web:9 not found: manifest unknown: manifest unknown',
      'final',
    ],
    [
      'failed to pull and unpack image "docker.io/library/nginx:1.17": failed to copy: httpReadSeeker: failed open: unexpected status code https://registry-1.docker.io/v2/library/nginx/manifests/sha256:0d17: 429 Too Many Requests - Server message: toomanyrequests: You have reached your unauthenticated pull rate limit. https://www.docker.com/increase-rate-limit',
      'transient',
    ],
    [
      'failed to resolve reference "registry.internal/app:2": failed to do request: Head "https://registry.internal/v2/app/manifests/2": dial tcp: lookup registry.internal on 172.18.0.1:53: no such host',
      'transient',
    ],
    [
      'failed to resolve reference "docker.io/library/nginx:1.25": failed to do request: Head "https://registry-1.docker.io/v2/library/nginx/manifests/1.25": net/http: TLS handshake timeout',
      'transient',
    ],
    [
      'rpc error: code = Canceled desc = failed to pull and unpack image "docker.io/library/nginx:1.25": context canceled',
      'transient',
    ],
    [
      'failed to pull and unpack image "docker.io/library/nginx:1.25": failed to copy: httpReadSeeker: failed open: failed to do request: Get "https://production.cloudflare.docker.com/registry-v2/docker/registry/v2/blobs/sha256/aa/aa": EOF',
      'transient',
    ],
    // The tag resolved, a layer blob (or a child manifest) is not there yet: replication lag first.
    [
      'failed to pull and unpack image "registry.example.com/shop/web:2": failed to copy: httpReadSeeker: failed open: could not fetch content descriptor sha256:4ec52d61e2c8c5a8b1f0e3d2c1b0a9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b2 (application/vnd.oci.image.layer.v1.tar+gzip) from remote: not found',
      'lag',
    ],
    [
      'rpc error: code = NotFound desc = failed to pull and unpack image "nixery.dev/shell:latest": failed to copy: httpReaderSeeker: failed open: could not fetch content descriptor sha256:55a9a2c9b30579d7b738c4384d2e0f168002ce3fc67667071012c88c41a6669f (application/vnd.docker.distribution.manifest.v2+json) from remote: not found',
      'lag',
    ],
    [
      'failed to pull and unpack image "docker.io/library/nginx:1.27": failed to copy: httpReadSeeker: failed open: content at https://registry-1.docker.io/v2/library/nginx/manifests/sha256:0d17b565c37bcbd895e9d92315a05c1c3c9a29f762b011a10c54a66cd53c9b31 not found: not found',
      'lag',
    ],
    ['something kguard has never seen', 'unknown'],
  ])('%s → %s', (text, cause) => {
    expect(judgePullError(text)).toBe(cause);
  });

  it('knows nothing without a text', () => {
    expect(judgePullError(undefined)).toBe('unknown');
  });
});

describe('pullErrorGist', () => {
  it('drops the 1.32 back-off prefix and containerd wrappers, keeping the registry answer', () => {
    expect(
      pullErrorGist(
        'Back-off pulling image "xxxxxnginx:1.17": ErrImagePull: failed to pull and unpack image "docker.io/library/xxxxxnginx:1.17": failed to resolve reference "docker.io/library/xxxxxnginx:1.17": pull access denied, repository does not exist or may require authorization: server message: insufficient_scope: authorization failed',
      ),
    ).toBe(
      'pull access denied, repository does not exist or may require authorization: server message: insufficient_scope: authorization failed',
    );
  });
});

describe('judgePullError at the token server (containerd remotes/docker/authorizer.go)', () => {
  const url = 'https://auth.docker.io/token?scope=repository%3Alibrary%2Fnginx%3Apull&service=registry.docker.io';
  const wrapped = (cause: string) =>
    `rpc error: code = Unknown desc = failed to pull and unpack image "docker.io/library/nginx:1.27": failed to resolve reference "docker.io/library/nginx:1.27": failed to authorize: failed to fetch anonymous token: ${cause}`;

  it.each([
    ['a DNS failure', `Get "${url}": dial tcp: lookup auth.docker.io on 172.18.0.1:53: no such host`],
    ['a TLS handshake timeout', `Get "${url}": net/http: TLS handshake timeout`],
    ['a 503', `unexpected status from GET request to ${url}: 503 Service Unavailable`],
    ['a 429', `unexpected status from GET request to ${url}: 429 Too Many Requests`],
  ])('calls %s transient: a registry blip is waited out, not rolled back', (_name, cause) => {
    expect(judgePullError(wrapped(cause))).toBe('transient');
  });

  it('still calls a refusal final (401 Unauthorized from the token server)', () => {
    expect(judgePullError(wrapped(`unexpected status from GET request to ${url}: 401 Unauthorized`))).toBe('final');
  });
});
