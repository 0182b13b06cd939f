// Image references read as containerd reads them (distribution/reference ParseNormalizedNamed).
import { describe, expect, it } from 'vitest';
import { endpointOf, parseReference } from '../../src/images/reference.js';

describe('parseReference', () => {
  it.each([
    ['nginx', 'docker.io/library/nginx:latest'],
    ['nginx:1.25', 'docker.io/library/nginx:1.25'],
    ['bitnami/redis:7', 'docker.io/bitnami/redis:7'],
    ['index.docker.io/library/nginx', 'docker.io/library/nginx:latest'],
    ['localhost/app', 'localhost/app:latest'],
    ['127.0.0.1:5000/team/app:v1', '127.0.0.1:5000/team/app:v1'],
    [`ghcr.io/org/app@sha256:${'a'.repeat(64)}`, `ghcr.io/org/app@sha256:${'a'.repeat(64)}`],
    [`quay.io/org/app:v1@sha256:${'b'.repeat(64)}`, `quay.io/org/app@sha256:${'b'.repeat(64)}`],
  ])('%s is %s', (image, normalized) => {
    const parsed = parseReference(image);
    expect(parsed.ok && parsed.image.normalized).toBe(normalized);
  });

  it('refuses what the kubelet could not pull (InvalidImageName)', () => {
    expect(parseReference('Nginx:1.25')).toMatchObject({ ok: false });
    expect(parseReference('nginx:bad tag')).toMatchObject({ ok: false });
    expect(parseReference(`${'a'.repeat(64)}`)).toMatchObject({ ok: false });
  });

  it('speaks HTTPS but to loopback and --insecure-registry hosts', () => {
    expect(endpointOf('docker.io', [])).toBe('https://registry-1.docker.io');
    expect(endpointOf('127.0.0.1:5000', [])).toBe('http://127.0.0.1:5000');
    expect(endpointOf('localhost:5000', [])).toBe('http://localhost:5000');
    expect(endpointOf('registry.lan:5000', ['registry.lan:5000'])).toBe('http://registry.lan:5000');
    expect(endpointOf('registry.lan:5000', [])).toBe('https://registry.lan:5000');
  });

  it('reads --insecure-registry written as a URL (http://host:port/, as hosts.toml writes a server) as its host', () => {
    // Before (#45): accepted, and it matched no image's domain: the registry was asked over HTTPS.
    expect(endpointOf('registry.lan:5000', ['http://registry.lan:5000/'])).toBe('http://registry.lan:5000');
    expect(endpointOf('registry.lan:5000', ['registry.lan:5000/'])).toBe('http://registry.lan:5000');
    expect(endpointOf('registry.lan:5000', ['http://other.lan:5000'])).toBe('https://registry.lan:5000');
  });
});
