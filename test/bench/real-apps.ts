// The apps `npm run bench -- --real` deploys, each as manifests (for kubectl and kguard) and as a
// Helm chart of the same objects (for Helm): two versions of each, so every run changes them.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { configMapYaml, objectSet, serviceYaml } from '../e2e/manifests.js';
import { deploymentYaml } from '../kube-sim/testing/kubectl.js';

/** The image no registry of the bench's scenario has (test/control-plane/stages.ts: ErrImagePull). */
export const MISSING_IMAGE = 'xxxxxnginx:1.17';

/** The healthy change: a ConfigMap, a Deployment of 3 replicas and a Service; version 0 or 1. */
export function webApp(version: number, image?: string): string {
  return [
    configMapYaml('web-config', { MODE: `v${version}` }),
    deploymentYaml('web', image ?? `nginx:1.${25 + version}`, { replicas: 3 }),
    serviceYaml('web', 80),
  ].join('---\n');
}

/** N objects, a third each Deployments (1 replica), ConfigMaps and Services; every one differs between versions. */
export function manyObjects(count: number, version: number): string {
  return objectSet(count, { image: `nginx:1.${25 + version}`, config: `v${version}`, port: 80 + version });
}

export interface AppFiles {
  /** The manifest file of each version. */
  manifests: string[];
  /** A chart directory of each version (the same objects as templates). */
  charts: string[];
}

/** Writes both versions as manifest files and as Helm charts under `dir`. */
export async function writeApp(dir: string, name: string, texts: readonly string[]): Promise<AppFiles> {
  const files: AppFiles = { manifests: [], charts: [] };
  for (const [version, text] of texts.entries()) {
    const manifest = join(dir, `${name}-${version}.yaml`);
    await writeFile(manifest, text);
    const chart = join(dir, `${name}-chart-${version}`);
    await mkdir(join(chart, 'templates'), { recursive: true });
    // The manifests hold no template actions: Helm renders them as they are, into the release's namespace.
    await writeFile(join(chart, 'Chart.yaml'), `apiVersion: v2\nname: ${name}\nversion: 0.1.${version}\n`);
    await writeFile(join(chart, 'templates', 'objects.yaml'), text);
    files.manifests.push(manifest);
    files.charts.push(chart);
  }
  return files;
}
