// Objects the API server refuses for their size, found before any kubectl call: a 50 MB manifest
// would otherwise cost kubectl's dry runs tens of seconds and most of a gigabyte before the API
// server says no. Pure: the caller reads the files.
//
// The limits, from the Kubernetes source:
// - pkg/apis/core/validation ValidateConfigMap and ValidateSecret: a ConfigMap's data and binaryData,
//   or a Secret's data (decoded) and stringData, may not add up to more than core.MaxSecretSize
//   (1 MiB): `Too long: may not be more than 1048576 bytes`.
// - k8s.io/apiserver/pkg/server/config.go: MaxRequestBodyBytes defaults to 3 MiB (3 * 1024 * 1024);
//   a create, update or patch with a larger body is refused (413 Request Entity Too Large).
import { parse } from 'yaml';
import { splitDocuments } from './documents.js';
import { PARSE_ABOVE_BYTES } from './quick-look.js';

export const MAX_DATA_BYTES = 1024 * 1024;
export const MAX_REQUEST_BODY_BYTES = 3 * 1024 * 1024;

export interface OversizedObject {
  /** "deploy.yaml (document 3)". */
  where: string;
  kind?: string;
  name?: string;
  /** What is over which limit, in a person's words. */
  problem: string;
}

/** The objects of one manifest file the API server would refuse for their size. */
export function oversizedObjects(text: string, origin: string): OversizedObject[] {
  if (Buffer.byteLength(text) <= PARSE_ABOVE_BYTES) return [];
  const documents = splitDocuments(text) ?? [{ index: 1, text, json: false, head: undefined }];
  return documents.flatMap((document) =>
    oversizedInDocument(
      document.text,
      document.json,
      documents.length > 1 ? `${origin} (document ${document.index})` : origin,
    ),
  );
}

/** One document's objects the API server would refuse for their size (one parse, above 1 MiB only). */
export function oversizedInDocument(text: string, json: boolean, where: string): OversizedObject[] {
  const bytes = Buffer.byteLength(text);
  if (bytes <= PARSE_ABOVE_BYTES) return [];
  let value: unknown;
  try {
    value = json ? JSON.parse(text) : parse(text, { uniqueKeys: false });
  } catch {
    // Not readable: kubectl's to say why. Its size alone still goes over the request limit.
    return bytes > 3 * MAX_REQUEST_BODY_BYTES ? [{ where, problem: requestProblem(bytes, 'its text alone is') }] : [];
  }
  return objectsOf(value).flatMap((object) => objectProblems(object, where));
}

/** What is over a limit in one object (a document, or a List's item). */
export function objectProblems(object: Record<string, unknown>, where: string): OversizedObject[] {
  const metadata = isRecord(object.metadata) ? object.metadata : {};
  const named = {
    where,
    kind: typeof object.kind === 'string' ? object.kind : undefined,
    name: typeof metadata.name === 'string' ? metadata.name : undefined,
  };
  const data = dataBytes(object);
  if (data !== undefined && data > MAX_DATA_BYTES) return [{ ...named, problem: dataProblem(data, named.kind) }];
  const body = Buffer.byteLength(JSON.stringify(object));
  return body > MAX_REQUEST_BODY_BYTES ? [{ ...named, problem: requestProblem(body, 'as JSON it is') }] : [];
}

export function dataProblem(bytes: number, kind: string | undefined): string {
  return `its data holds ${bytes} bytes; the API server takes at most ${MAX_DATA_BYTES} (1 MiB) in a ${kind}`;
}

export function requestProblem(bytes: number, what: string): string {
  return `${what} ${bytes} bytes; the API server takes a request body of at most ${MAX_REQUEST_BODY_BYTES} (3 MiB)`;
}

/** A ConfigMap's or a Secret's data as the API server counts it (decoded); undefined for other kinds. */
function dataBytes(object: Record<string, unknown>): number | undefined {
  if (object.apiVersion !== 'v1' || (object.kind !== 'ConfigMap' && object.kind !== 'Secret')) return undefined;
  const values = (field: string) =>
    Object.values(isRecord(object[field]) ? object[field] : {}).filter(
      (value): value is string => typeof value === 'string',
    );
  const decoded = (field: string) => values(field).reduce((sum, value) => sum + Buffer.from(value, 'base64').length, 0);
  const plain = (field: string) => values(field).reduce((sum, value) => sum + Buffer.byteLength(value), 0);
  return object.kind === 'Secret' ? decoded('data') + plain('stringData') : plain('data') + decoded('binaryData');
}

/** The objects of a document: itself, or a List's items. */
function objectsOf(value: unknown): Array<Record<string, unknown>> {
  if (!isRecord(value)) return [];
  if (typeof value.kind === 'string' && value.kind.endsWith('List') && Array.isArray(value.items))
    return value.items.filter(isRecord);
  return [value];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
