import type { KubeEvent } from '../../kube.js';
import type { WorkloadSnapshot } from '../../model/snapshot.js';
import type { KubeObject } from '../../objects/model.js';
import { snapshotOf } from '../resources.js';
import { itemsOf, logsResult, parseApiResources } from '../output/parse.js';
import { reviewAccess } from '../access.js';
import type { AccessAnswer, AccessQuestion, ApiResource, LogsResult, ObjectReads } from '../types.js';
import type { KubectlRunner } from './runner.js';

export function objectReads(runner: KubectlRunner): ObjectReads {
  return {
    /**
     * Full copies of objects of the given types in one namespace ('' for cluster-scoped types),
     * one list request per type, with managedFields (kubectl hides them unless asked).
     */
    async listObjects(namespace: string, types: readonly string[]): Promise<KubeObject[]> {
      if (types.length === 0) return [];
      const items = await runner.lists(
        namespace,
        types,
        {},
        `read ${types.join(', ')}${namespace ? ` in namespace ${namespace}` : ''}`,
        ['get', types.join(','), ...(namespace ? ['-n', namespace] : []), '-o', 'json', '--show-managed-fields'],
      );
      return runner.observed(items);
    },

    /**
     * One object as it is now, or undefined when it does not exist. A type whose REST path is known
     * is read with `get --raw` (through the API channel: no process of its own); 404 means gone.
     */
    async getObject(type: string, namespace: string, name: string): Promise<KubeObject | undefined> {
      const path = await runner.collectionPathOf({ type, namespace }).catch(() => undefined);
      if (path) {
        const raw = await runner.run(['get', '--raw', `${path}/${encodeURIComponent(name)}`], {
          deadlineMs: runner.connection.readDeadlineMs,
        });
        if (raw.exitCode === 0) return runner.observed([JSON.parse(raw.stdout) as KubeObject])[0];
        if (/\(NotFound\)/.test(raw.stderr)) return undefined;
        throw runner.failure(`read ${type}/${name}${namespace ? ` in namespace ${namespace}` : ''}`, raw);
      }
      const result = await runner.run(
        [
          'get',
          type,
          name,
          ...(namespace ? ['-n', namespace] : []),
          '-o',
          'json',
          '--show-managed-fields',
          '--ignore-not-found',
        ],
        { deadlineMs: runner.connection.readDeadlineMs },
      );
      if (result.exitCode !== 0)
        throw runner.failure(`read ${type}/${name}${namespace ? ` in namespace ${namespace}` : ''}`, result);
      return runner.observed(itemsOf<KubeObject>(result.stdout))[0];
    },

    /** kguard's run journals (Secrets with the journal label), in one namespace or in all. */
    async listLabelled(type: string, namespace: string | undefined, selector: string): Promise<KubeObject[]> {
      return runner.lists(
        namespace ?? '',
        [type],
        { labelSelector: selector },
        `list ${type} labelled ${selector}${namespace ? ` in namespace ${namespace}` : ''}`,
        // managedFields: their times are the API server's clock, which tells a Lease's age (journal/liveness.ts).
        [
          'get',
          type,
          ...(namespace ? ['-n', namespace] : ['--all-namespaces']),
          '-l',
          selector,
          '-o',
          'json',
          '--show-managed-fields',
        ],
      );
    },

    /** Resource names and scope by "group/Kind", from discovery (`kubectl api-resources`). */
    async apiResources(apiVersions?: readonly string[]): Promise<Map<string, ApiResource>> {
      if (apiVersions) return runner.discovery.resourcesOf([...new Set(apiVersions)]);
      const result = await runner.run(['api-resources', '-o', 'wide', '--no-headers=false'], {
        deadlineMs: runner.connection.readDeadlineMs,
      });
      const resources = parseApiResources(result.stdout);
      // Partial discovery (an APIService down) makes kubectl exit 1 after printing every group it
      // could read (memcache.go, "unable to retrieve the complete list of server APIs"): still right.
      if (
        result.exitCode !== 0 &&
        !(resources.size > 0 && /unable to retrieve the complete list of server APIs/.test(result.stderr))
      ) {
        throw runner.failure('read the API resources (kubectl api-resources)', result);
      }
      return resources;
    },

    /** Kinds a CRD of this run just established appear: discovery is read again from now on. */
    refreshDiscovery(): void {
      runner.discovery.forget();
    },
    /**
     * What the tracker reads of one namespace, in a single kubectl call: the types its kinds' rows
     * name (`deployments.apps`, `pods`, a custom resource's `kind.version.group`...). Namespace ''
     * reads cluster-scoped types.
     */
    async workloadSnapshot(namespace: string, types: readonly string[]): Promise<WorkloadSnapshot> {
      const result = await runner.run(['get', types.join(','), ...(namespace ? ['-n', namespace] : []), '-o', 'json'], {
        deadlineMs: runner.connection.readDeadlineMs,
      });
      if (result.exitCode !== 0)
        throw runner.failure(`read workloads${namespace ? ` in namespace ${namespace}` : ''}`, result);
      return snapshotOf(itemsOf<KubeObject>(result.stdout));
    },

    /** Events about one object (a pod or a deployment), oldest first. */
    async events(namespace: string, objectName: string): Promise<KubeEvent[]> {
      const selector = `involvedObject.name=${objectName}`;
      const items = await runner.lists(
        namespace,
        ['events'],
        { fieldSelector: selector },
        `read events of ${objectName}`,
        ['get', 'events', '-n', namespace, '--field-selector', selector, '-o', 'json'],
      );
      return items as unknown as KubeEvent[];
    },

    /**
     * The last `tail` lines one container printed (`kubectl logs`); with `previous`, those of its run
     * before the last restart. Evidence, not a verdict: a failure comes back as kubectl's own words.
     */
    async logs(
      namespace: string,
      pod: string,
      container: string,
      options: { tail: number; previous: boolean },
    ): Promise<LogsResult> {
      const args = [
        'logs',
        pod,
        '-n',
        namespace,
        '-c',
        container,
        `--tail=${options.tail}`,
        ...(options.previous ? ['--previous'] : []),
      ];
      return logsResult(await runner.run(args, { deadlineMs: runner.connection.readDeadlineMs }));
    },

    reviewAccess(questions: readonly AccessQuestion[]): Promise<AccessAnswer[]> {
      return reviewAccess(questions, (args, input) =>
        runner.run(args, { deadlineMs: runner.connection.readDeadlineMs, input }),
      );
    },
  };
}
