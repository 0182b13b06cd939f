// A real OCI registry for the tests: Debian's `docker-registry` (distribution's registry, the
// server Docker Hub's own code grew from), on 127.0.0.1 with htpasswd (Basic) authentication,
// started per test file in a temporary directory and stopped by its PID. Images are pushed with
// the distribution API itself: two blobs (POST then PUT each), then a PUT of the manifest.
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeRegistryConfig } from '../control-plane/registry.js';
import { freePort } from '../free-port.js';

export interface TestRegistry {
  /** "127.0.0.1:PORT": the registry part of an image reference. */
  host: string;
  username: string;
  password: string;
  /** Pushes a tiny image (one config blob, one layer) as name:tag; resolves to its manifest digest. */
  push(name: string, tag: string): Promise<string>;
  stop(): Promise<void>;
}

export async function startRegistry(
  credentials = { username: 'puller', password: 'Reg1stry-S3cret-Passw0rd' },
): Promise<TestRegistry> {
  const dir = await mkdtemp(join(tmpdir(), 'kguard-registry-'));
  const port = await freePort();
  const host = `127.0.0.1:${port}`;
  const config = await writeRegistryConfig(dir, host, { realm: 'kguard-test-registry', credentials });
  const child: ChildProcess = spawn('docker-registry', ['serve', config], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let said = '';
  child.stderr?.on('data', (chunk: Buffer) => (said += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const base = `http://${host}`;
  const authorization = `Basic ${Buffer.from(`${credentials.username}:${credentials.password}`).toString('base64')}`;
  // Ready when /v2/ answers (401: it wants the credentials).
  const deadline = Date.now() + 20_000;
  for (;;) {
    const answer = await fetch(`${base}/v2/`).catch(() => undefined);
    if (answer) break;
    if (child.exitCode !== null || Date.now() > deadline)
      throw new Error(`docker-registry did not start on ${host}: ${said}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }

  const upload = async (name: string, bytes: Buffer): Promise<string> => {
    const digest = `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
    const started = await fetch(`${base}/v2/${name}/blobs/uploads/`, { method: 'POST', headers: { authorization } });
    if (started.status !== 202) throw new Error(`blob upload refused: ${started.status} ${await started.text()}`);
    const location = new URL(started.headers.get('location')!, base);
    location.searchParams.set('digest', digest);
    const put = await fetch(location, {
      method: 'PUT',
      headers: { authorization, 'content-type': 'application/octet-stream' },
      body: bytes,
    });
    if (put.status !== 201) throw new Error(`blob PUT refused: ${put.status} ${await put.text()}`);
    return digest;
  };

  return {
    host,
    ...credentials,
    async push(name, tag) {
      const config = Buffer.from(
        JSON.stringify({ architecture: 'amd64', os: 'linux', rootfs: { type: 'layers', diff_ids: [] } }),
      );
      const layer = Buffer.from(`layer of ${name}:${tag}`);
      const [configDigest, layerDigest] = [await upload(name, config), await upload(name, layer)];
      const manifest = Buffer.from(
        JSON.stringify({
          schemaVersion: 2,
          mediaType: 'application/vnd.docker.distribution.manifest.v2+json',
          config: {
            mediaType: 'application/vnd.docker.container.image.v1+json',
            size: config.length,
            digest: configDigest,
          },
          layers: [
            { mediaType: 'application/vnd.docker.image.rootfs.diff.tar.gzip', size: layer.length, digest: layerDigest },
          ],
        }),
      );
      const put = await fetch(`${base}/v2/${name}/manifests/${tag}`, {
        method: 'PUT',
        headers: { authorization, 'content-type': 'application/vnd.docker.distribution.manifest.v2+json' },
        body: manifest,
      });
      if (put.status !== 201) throw new Error(`manifest PUT refused: ${put.status} ${await put.text()}`);
      return put.headers.get('docker-content-digest')!;
    },
    async stop() {
      if (child.exitCode === null && child.pid !== undefined) {
        process.kill(child.pid, 'SIGTERM');
        await exited;
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}
