// Turns manifest text into the objects kubectl would apply, and picks out the workloads kguard tracks.
import { parseAllDocuments } from 'yaml';
import { InputError } from '../errors.js';

export interface ManifestObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; [key: string]: unknown };
  [key: string]: unknown;
}

export interface ManifestSource {
  /** Where the text came from, as the user named it: a path, a URL, "stdin" or "kustomize DIR". */
  origin: string;
  text: string;
}

export interface WorkloadRef {
  kind: 'Deployment';
  name: string;
  namespace: string;
}

/** Kinds kguard knows how to watch and undo. Others are applied and reported, never tracked. */
const TRACKED_KINDS: Record<string, WorkloadRef['kind']> = { 'apps/v1:Deployment': 'Deployment' };

export function parseManifests(source: ManifestSource): ManifestObject[] {
  // kubectl decodes YAML the 1.1 way (sigs.k8s.io/yaml): `0644` is octal, `yes` is a boolean.
  const documents = parseAllDocuments(source.text, { prettyErrors: true, version: '1.1' });
  const objects: ManifestObject[] = [];
  documents.forEach((document, index) => {
    const firstError = document.errors[0];
    if (firstError) {
      throw new InputError(
        `${source.origin}: document ${index + 1} is not valid YAML: ${firstError.message.split('\n')[0]?.replace(/:$/, '')}. ` +
          'Fix the manifest and run kguard again; nothing was applied.',
      );
    }
    const value: unknown = document.toJS();
    if (value === null || value === undefined) return;
    objects.push(...flattenLists(value, `${source.origin} document ${index + 1}`));
  });
  return objects;
}

function flattenLists(value: unknown, where: string): ManifestObject[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new InputError(
      `${where}: expected a Kubernetes object (a mapping with apiVersion, kind and metadata), found ${describe(value)}. ` +
        'Fix the manifest and run kguard again; nothing was applied.',
    );
  }
  const candidate = value as Record<string, unknown>;
  // kubectl flattens v1 List (and any *List kind with items) before applying.
  if (typeof candidate.kind === 'string' && candidate.kind.endsWith('List') && Array.isArray(candidate.items)) {
    return candidate.items.flatMap((item, index) => flattenLists(item, `${where} item ${index + 1}`));
  }
  return [asObject(candidate, where)];
}

function asObject(candidate: Record<string, unknown>, where: string): ManifestObject {
  const metadata = candidate.metadata as Record<string, unknown> | undefined;
  const missing = [
    typeof candidate.apiVersion === 'string' ? undefined : 'apiVersion',
    typeof candidate.kind === 'string' ? undefined : 'kind',
    typeof metadata?.name === 'string' && metadata.name !== '' ? undefined : 'metadata.name',
  ].filter((field): field is string => field !== undefined);
  if (missing.length > 0) {
    throw new InputError(
      `${where}: the object has no ${missing.join(', ')}; kubectl apply needs apiVersion, kind and metadata.name. ` +
        'Fix the manifest and run kguard again; nothing was applied.',
    );
  }
  return candidate as ManifestObject;
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return 'a list';
  if (value === null) return 'an empty value';
  return `a ${typeof value} (${JSON.stringify(value).slice(0, 40)})`;
}

/** The workloads in play, with each one's namespace resolved the way kubectl resolves it. */
export function workloadsIn(objects: readonly ManifestObject[], defaultNamespace: string): WorkloadRef[] {
  const seen = new Set<string>();
  const workloads: WorkloadRef[] = [];
  for (const object of objects) {
    const kind = TRACKED_KINDS[`${object.apiVersion}:${object.kind}`];
    if (!kind) continue;
    const workload: WorkloadRef = {
      kind,
      name: object.metadata.name,
      namespace: object.metadata.namespace ?? defaultNamespace,
    };
    const key = workloadKey(workload);
    if (seen.has(key)) continue;
    seen.add(key);
    workloads.push(workload);
  }
  return workloads;
}

/** Objects whose namespace in the manifest contradicts an explicit --namespace: kubectl refuses these. */
export function namespaceConflicts(objects: readonly ManifestObject[], explicitNamespace: string | undefined): string[] {
  if (!explicitNamespace) return [];
  return objects
    .filter((object) => object.metadata.namespace !== undefined && object.metadata.namespace !== explicitNamespace)
    .map((object) => `${object.kind.toLowerCase()}/${object.metadata.name} (namespace ${object.metadata.namespace})`);
}

export function workloadKey(workload: { kind: string; name: string; namespace: string }): string {
  return `${workload.namespace}/${workload.kind.toLowerCase()}/${workload.name}`;
}

/** How kguard names a workload to a person: deployment/web (namespace shop). */
export function describeWorkload(workload: { kind: string; name: string; namespace: string }): string {
  return `${workload.kind.toLowerCase()}/${workload.name} (namespace ${workload.namespace})`;
}
