// The API server's discovery, one group version at a time (`kubectl get --raw /apis/GROUP/VERSION`),
// each read once: an unavailable group elsewhere (an APIService that is down) never matters to
// the groups an apply touches.
import { diagnoseKubectlFailure } from './output/diagnose.js';
import type { ExecResult } from './process/exec.js';
import { groupVersionPath, resourceNameIn } from './resources.js';
import type { ApiResource } from './types.js';

export class Discovery {
  private readonly documents = new Map<string, Promise<unknown>>();
  private readonly resourceNames = new Map<string, Promise<string>>();

  constructor(private readonly readRaw: (path: string) => Promise<ExecResult>) {}

  /** The resources of the given group versions only, each from its own discovery document: one unavailable group elsewhere does not matter. */
  async resourcesOf(apiVersions: readonly string[]): Promise<Map<string, ApiResource>> {
    const resources = new Map<string, ApiResource>();
    const documents = await Promise.all(
      apiVersions.map(async (apiVersion) => ({ apiVersion, document: await this.discoveryOf(apiVersion) })),
    );
    for (const { apiVersion, document } of documents) {
      const group = apiVersion.includes('/') ? apiVersion.split('/')[0] : '';
      const listed =
        (document as { resources?: Array<{ name?: string; kind?: string; namespaced?: boolean }> }).resources ?? [];
      const names = new Set(listed.map((entry) => entry.name));
      for (const entry of listed) {
        if (typeof entry.name !== 'string' || entry.name.includes('/') || typeof entry.kind !== 'string') continue;
        const statusSubresource = names.has(`${entry.name}/status`);
        resources.set(`${group}/${entry.kind}`, {
          name: entry.name,
          namespaced: entry.namespaced === true,
          ...(statusSubresource ? { statusSubresource } : {}),
        });
      }
    }
    return resources;
  }

  /** Forgets every document read so far: the next lookups read discovery again. */
  forget(): void {
    this.documents.clear();
    this.resourceNames.clear();
  }

  /** One group version's discovery document (`kubectl get --raw /apis/GROUP/VERSION`), read once. */
  discoveryOf(apiVersion: string): Promise<unknown> {
    let found = this.documents.get(apiVersion);
    if (!found) {
      const [group, version] = apiVersion.includes('/')
        ? (apiVersion.split('/') as [string, string])
        : ['', apiVersion];
      const path = groupVersionPath({ group, version });
      found = (async () => {
        const result = await this.readRaw(path);
        if (result.exitCode !== 0)
          throw new Error(
            `kubectl could not read the API server's discovery of ${path}: ${diagnoseKubectlFailure(result).detail}`,
          );
        return JSON.parse(result.stdout) as unknown;
      })();
      // A failed lookup is asked again next time.
      found.catch(() => this.documents.delete(apiVersion));
      this.documents.set(apiVersion, found);
    }
    return found;
  }

  resourceNameOf(group: string, version: string, kind: string): Promise<string> {
    const key = `${group}/${version}/${kind}`;
    let found = this.resourceNames.get(key);
    if (!found) {
      found = (async () => {
        const name = resourceNameIn(await this.discoveryOf(group ? `${group}/${version}` : version), kind);
        if (!name) throw new Error(`the API server does not serve ${kind} in ${group}/${version}`);
        return name;
      })();
      // A failed lookup is asked again next time.
      found.catch(() => this.resourceNames.delete(key));
      this.resourceNames.set(key, found);
    }
    return found;
  }
}
