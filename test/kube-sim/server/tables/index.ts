// Server-side printing: when kubectl asks for `as=Table` (every `kubectl get` without -o json/yaml/
// name), lists, single objects and watch events are answered as meta.k8s.io Tables, so kubectl
// shows the same columns as against a real cluster (READY, STATUS, RESTARTS…).

import type { KubeObject } from '../../types.js';
import { acceptedMediaTypeParams } from '../mediaTypes.js';
import { printerFor } from './columns.js';

export type TableVersion = 'v1' | 'v1beta1';

export function negotiateTable(accept: string | undefined): TableVersion | undefined {
  for (const params of acceptedMediaTypeParams(accept)) {
    if (params.get('as') !== 'Table' || params.get('g') !== 'meta.k8s.io') continue;
    const version = params.get('v');
    if (version === 'v1' || version === 'v1beta1') return version;
  }
  return undefined;
}

export function tableContentType(version: TableVersion): string {
  return `application/json;as=Table;v=${version};g=meta.k8s.io`;
}

/** `includeObject`: None, Metadata (the default: PartialObjectMetadata) or Object. */
export function tableOf(
  kind: string,
  objects: KubeObject[],
  options: { version: TableVersion; now: Date; includeObject: string | null; resourceVersion?: string },
): object {
  const printer = printerFor(kind);
  return {
    kind: 'Table',
    apiVersion: `meta.k8s.io/${options.version}`,
    metadata: options.resourceVersion === undefined ? {} : { resourceVersion: options.resourceVersion },
    columnDefinitions: printer.columns,
    rows: objects.map((obj) => ({
      cells: printer.cells(obj, options.now),
      object: embedded(obj, options.includeObject, options.version),
    })),
  };
}

function embedded(obj: KubeObject, includeObject: string | null, version: TableVersion): object | undefined {
  if (includeObject === 'None') return undefined;
  if (includeObject === 'Object') return obj;
  return { kind: 'PartialObjectMetadata', apiVersion: `meta.k8s.io/${version}`, metadata: obj.metadata };
}
