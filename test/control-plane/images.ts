// The real nodes' images, made here (nothing comes from the internet): images/testapp (one static Go
// program whose args choose what a pod does) packed as OCI images by hand, the sandbox (pause)
// image being the same program with `pause`, pushed with skopeo into a local docker-registry.
//
//   const bin = await ensureTestApp();           // ~/.cache/kguard/test-images/<hash>/testapp
//   const layout = await ociLayout(bin, dir);    // oci:<dir>:testapp and oci:<dir>:pause
//   await pushImages(layout, '127.0.0.1:5000');  // 127.0.0.1:5000/kguard/testapp:1, …/kguard/pause:1

import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { cacheRoot, SOURCES } from './build.js';

/** The images every real cluster's registry holds: repository → OCI layout tag. */
export const TEST_IMAGES = {
  /** The test pods' program; tags 1 and 2 are the same bytes (a rollout changes the reference). */
  testapp: 'kguard/testapp',
  /** The sandbox image containerd runs for each pod (`sandbox_image`). */
  pause: 'kguard/pause',
} as const;
export const TESTAPP_TAGS = ['1', '2'] as const;
export const PAUSE_TAG = '1';

const TESTAPP_DIR = join(SOURCES, 'images', 'testapp');
const BUILD_DEADLINE_MS = 5 * 60_000;

/** Builds images/testapp (static, CGO off) once per source hash; returns the binary's path. */
export async function ensureTestApp(): Promise<string> {
  const hash = createHash('sha256');
  for (const name of (await readdir(TESTAPP_DIR)).sort())
    hash
      .update(name)
      .update('\0')
      .update(await readFile(join(TESTAPP_DIR, name)));
  const dir = join(cacheRoot(), '..', 'test-images', hash.digest('hex').slice(0, 16));
  const bin = join(dir, 'testapp');
  if (existsSync(bin)) return bin;
  await mkdir(dir, { recursive: true });
  const partial = `${bin}.partial-${process.pid}`;
  await execa('go', ['build', '-trimpath', '-ldflags=-s -w', '-o', partial, '.'], {
    cwd: TESTAPP_DIR,
    env: { ...process.env, CGO_ENABLED: '0', GOFLAGS: '-mod=mod' },
    timeout: BUILD_DEADLINE_MS,
  });
  await rename(partial, bin);
  return bin;
}

interface Descriptor {
  mediaType: string;
  digest: string;
  size: number;
  annotations?: Record<string, string>;
}

/**
 * An OCI image layout (image-spec's image-layout.md) holding two images of one layer (the
 * binary at /testapp): `testapp` (Entrypoint ["/testapp"]) and `pause` (["/testapp", "pause"]).
 */
export async function ociLayout(binary: string, dir: string): Promise<string> {
  const blobs = join(dir, 'blobs', 'sha256');
  await mkdir(blobs, { recursive: true });
  const blob = async (bytes: Buffer, mediaType: string): Promise<Descriptor> => {
    const hex = createHash('sha256').update(bytes).digest('hex');
    await writeFile(join(blobs, hex), bytes);
    return { mediaType, digest: `sha256:${hex}`, size: bytes.length };
  };
  // An uncompressed layer (application/vnd.oci.image.layer.v1.tar): its digest is its diff ID.
  const root = join(dir, 'rootfs');
  await mkdir(root, { recursive: true });
  await writeFile(join(root, 'testapp'), await readFile(binary), { mode: 0o755 });
  const { stdout: tar } = await execa(
    'tar',
    ['-C', root, '--owner=0', '--group=0', '--numeric-owner', '--mtime=@0', '-cf', '-', 'testapp'],
    { encoding: 'buffer', timeout: 60_000 },
  );
  await rm(root, { recursive: true, force: true });
  const layer = await blob(Buffer.from(tar), 'application/vnd.oci.image.layer.v1.tar');
  const manifests: Descriptor[] = [];
  for (const [name, entrypoint] of [
    ['testapp', ['/testapp']],
    ['pause', ['/testapp', 'pause']],
  ] as const) {
    const config = await blob(
      Buffer.from(
        JSON.stringify({
          architecture: 'amd64',
          os: 'linux',
          config: { Entrypoint: entrypoint, WorkingDir: '/' },
          rootfs: { type: 'layers', diff_ids: [layer.digest] },
        }),
      ),
      'application/vnd.oci.image.config.v1+json',
    );
    const manifest = await blob(
      Buffer.from(
        JSON.stringify({
          schemaVersion: 2,
          mediaType: 'application/vnd.oci.image.manifest.v1+json',
          config,
          layers: [layer],
        }),
      ),
      'application/vnd.oci.image.manifest.v1+json',
    );
    manifests.push({ ...manifest, annotations: { 'org.opencontainers.image.ref.name': name } });
  }
  await writeFile(join(dir, 'oci-layout'), JSON.stringify({ imageLayoutVersion: '1.0.0' }));
  await writeFile(join(dir, 'index.json'), JSON.stringify({ schemaVersion: 2, manifests }));
  return dir;
}

/** Copies an OCI layout's image into a plain-HTTP registry with skopeo. */
export async function pushImage(
  layout: string,
  name: string,
  registry: string,
  reference: string,
  credentials?: { username: string; password: string },
): Promise<void> {
  await execa(
    'skopeo',
    [
      'copy',
      '--quiet',
      '--dest-tls-verify=false',
      ...(credentials ? ['--dest-creds', `${credentials.username}:${credentials.password}`] : []),
      `oci:${layout}:${name}`,
      `docker://${registry}/${reference}`,
    ],
    // skopeo reads its policy from /etc/containers/policy.json, which Debian's package ships.
    { timeout: 60_000 },
  );
}

/** Pushes the sandbox image and the test program's tags into `registry`. */
export async function pushTestImages(
  layout: string,
  registry: string,
  credentials?: { username: string; password: string },
): Promise<void> {
  await pushImage(layout, 'pause', registry, `${TEST_IMAGES.pause}:${PAUSE_TAG}`, credentials);
  for (const tag of TESTAPP_TAGS)
    await pushImage(layout, 'testapp', registry, `${TEST_IMAGES.testapp}:${tag}`, credentials);
}
