// What each object's restore is given (restore.ts hands it out): the restore's dependencies, a
// reader of the object's live copy, and its REST path from discovery.
import type { Clock } from '../clock.js';
import type { ApiResource, Kubectl } from '../kubectl/types.js';
import type { Reporter } from '../model/events.js';
import { groupOf, kindKey, versionOf, type KubeObject, type ObjectRef } from '../objects/model.js';

export interface RestoreDeps {
  kubectl: Pick<
    Kubectl,
    | 'listObjects'
    | 'getObject'
    | 'replace'
    | 'create'
    | 'deleteExact'
    | 'apiResources'
    | 'commandLine'
    | 'workloadSnapshot'
  >;
  clock: Clock;
  reporter: Reporter;
  /** Writes a pre-apply copy where only this user can read it; returns the path. */
  keepCopy(ref: ObjectRef, object: KubeObject): Promise<string>;
}

/** Reads one object: the first time from its round's lists, after that on its own. */
export type ObjectReader = () => Promise<KubeObject | undefined>;

/** Discovery, asked once per restore and only for the group versions it touches. */
export type ApiResources = () => Promise<Map<string, ApiResource>>;

/** The REST path of an object, from discovery: /api/v1/namespaces/NS/PLURAL/NAME or /apis/G/V/... */
export async function apiPath(ref: ObjectRef, apiResources: ApiResources): Promise<string> {
  const group = groupOf(ref.apiVersion);
  const resource = (await apiResources()).get(kindKey(ref));
  if (!resource) throw new Error(`the API server does not list the kind ${ref.kind} (${ref.apiVersion}) any more`);
  const base = group === '' ? `/api/${versionOf(ref.apiVersion)}` : `/apis/${group}/${versionOf(ref.apiVersion)}`;
  const scope = resource.namespaced ? `/namespaces/${encodeURIComponent(ref.namespace)}` : '';
  return `${base}${scope}/${resource.name}/${encodeURIComponent(ref.name)}`;
}

/** What one object's restore is given (restore.ts restoreOne): --rollback-timeout, the restore's dependencies, discovery, and the object's reader. */
export interface ObjectRestore {
  options: { deadlineMs: number };
  deps: RestoreDeps;
  apiResources: ApiResources;
  read: ObjectReader;
}
