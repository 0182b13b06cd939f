// Decoding of the protobuf bodies kubectl's typed generators send (`kubectl create deployment |
// namespace | configmap | secret | service`, and `kubectl auth can-i`'s SelfSubjectAccessReview). Only the fields those generators can set are mapped;
// field numbers come from k8s.io/api generated.proto and were checked against captured kubectl
// bodies. Everything else on the wire is skipped.
//
// Wire layout: "k8s\0" + runtime.Unknown{1: TypeMeta{1: apiVersion, 2: kind}, 2: raw object}.
// gogo-protobuf writes non-pointer fields even when empty, so empty strings, zero numbers and
// false are dropped unless the Go field is a pointer (`keepZero`), where zero is meaningful.

import { ApiError } from '../errors.js';
import { RESOURCE_TYPES } from '../kinds.js';

type Scalar = 'string' | 'int' | 'bool' | 'bytes' | 'stringMap' | 'bytesMap' | 'intOrString';

interface Field {
  name: string;
  kind: Scalar | Schema;
  repeated?: boolean;
  keepZero?: boolean;
}

type Schema = { [fieldNumber: number]: Field };

const MAGIC = Buffer.from('k8s\0', 'latin1');

const OBJECT_META: Schema = {
  1: { name: 'name', kind: 'string' },
  2: { name: 'generateName', kind: 'string' },
  3: { name: 'namespace', kind: 'string' },
  11: { name: 'labels', kind: 'stringMap' },
  12: { name: 'annotations', kind: 'stringMap' },
  14: { name: 'finalizers', kind: 'string', repeated: true },
};

const LABEL_SELECTOR: Schema = {
  1: { name: 'matchLabels', kind: 'stringMap' },
  2: {
    name: 'matchExpressions',
    repeated: true,
    kind: {
      1: { name: 'key', kind: 'string' },
      2: { name: 'operator', kind: 'string' },
      3: { name: 'values', kind: 'string', repeated: true },
    },
  },
};

const CONTAINER: Schema = {
  1: { name: 'name', kind: 'string' },
  2: { name: 'image', kind: 'string' },
  3: { name: 'command', kind: 'string', repeated: true },
  4: { name: 'args', kind: 'string', repeated: true },
  5: { name: 'workingDir', kind: 'string' },
  6: {
    name: 'ports',
    repeated: true,
    kind: {
      1: { name: 'name', kind: 'string' },
      2: { name: 'hostPort', kind: 'int' },
      3: { name: 'containerPort', kind: 'int', keepZero: true },
      4: { name: 'protocol', kind: 'string' },
      5: { name: 'hostIP', kind: 'string' },
    },
  },
  7: {
    name: 'env',
    repeated: true,
    kind: { 1: { name: 'name', kind: 'string' }, 2: { name: 'value', kind: 'string' } },
  },
  13: { name: 'terminationMessagePath', kind: 'string' },
  14: { name: 'imagePullPolicy', kind: 'string' },
  20: { name: 'terminationMessagePolicy', kind: 'string' },
};

const POD_SPEC: Schema = {
  2: { name: 'containers', kind: CONTAINER, repeated: true },
  3: { name: 'restartPolicy', kind: 'string' },
  4: { name: 'terminationGracePeriodSeconds', kind: 'int', keepZero: true },
  6: { name: 'dnsPolicy', kind: 'string' },
  7: { name: 'nodeSelector', kind: 'stringMap' },
  8: { name: 'serviceAccountName', kind: 'string' },
  10: { name: 'nodeName', kind: 'string' },
  19: { name: 'schedulerName', kind: 'string' },
  20: { name: 'initContainers', kind: CONTAINER, repeated: true },
};

const DEPLOYMENT_SPEC: Schema = {
  1: { name: 'replicas', kind: 'int', keepZero: true },
  2: { name: 'selector', kind: LABEL_SELECTOR },
  3: { name: 'template', kind: { 1: { name: 'metadata', kind: OBJECT_META }, 2: { name: 'spec', kind: POD_SPEC } } },
  4: {
    name: 'strategy',
    kind: {
      1: { name: 'type', kind: 'string' },
      2: {
        name: 'rollingUpdate',
        kind: { 1: { name: 'maxUnavailable', kind: 'intOrString' }, 2: { name: 'maxSurge', kind: 'intOrString' } },
      },
    },
  },
  5: { name: 'minReadySeconds', kind: 'int' },
  6: { name: 'revisionHistoryLimit', kind: 'int', keepZero: true },
  7: { name: 'paused', kind: 'bool' },
  9: { name: 'progressDeadlineSeconds', kind: 'int', keepZero: true },
};

const SERVICE_SPEC: Schema = {
  1: {
    name: 'ports',
    repeated: true,
    kind: {
      1: { name: 'name', kind: 'string' },
      2: { name: 'protocol', kind: 'string' },
      3: { name: 'port', kind: 'int', keepZero: true },
      4: { name: 'targetPort', kind: 'intOrString' },
      5: { name: 'nodePort', kind: 'int' },
      6: { name: 'appProtocol', kind: 'string' },
    },
  },
  2: { name: 'selector', kind: 'stringMap' },
  3: { name: 'clusterIP', kind: 'string' },
  4: { name: 'type', kind: 'string' },
  5: { name: 'externalIPs', kind: 'string', repeated: true },
  7: { name: 'sessionAffinity', kind: 'string' },
  10: { name: 'externalName', kind: 'string' },
};

/** authorization/v1 SelfSubjectAccessReviewSpec, as `kubectl auth can-i` sends it. */
const SELF_SUBJECT_ACCESS_REVIEW_SPEC: Schema = {
  1: {
    name: 'resourceAttributes',
    kind: {
      1: { name: 'namespace', kind: 'string' },
      2: { name: 'verb', kind: 'string' },
      3: { name: 'group', kind: 'string' },
      4: { name: 'version', kind: 'string' },
      5: { name: 'resource', kind: 'string' },
      6: { name: 'subresource', kind: 'string' },
      7: { name: 'name', kind: 'string' },
    },
  },
  2: {
    name: 'nonResourceAttributes',
    kind: { 1: { name: 'path', kind: 'string' }, 2: { name: 'verb', kind: 'string' } },
  },
};

/** Top-level schemas by kind. Field 1 is always metadata. */
const OBJECT_SCHEMAS: Record<string, Schema> = {
  Deployment: { 1: { name: 'metadata', kind: OBJECT_META }, 2: { name: 'spec', kind: DEPLOYMENT_SPEC } },
  Namespace: {
    1: { name: 'metadata', kind: OBJECT_META },
    2: { name: 'spec', kind: { 1: { name: 'finalizers', kind: 'string', repeated: true } } },
  },
  ConfigMap: {
    1: { name: 'metadata', kind: OBJECT_META },
    2: { name: 'data', kind: 'stringMap' },
    3: { name: 'binaryData', kind: 'bytesMap' },
    4: { name: 'immutable', kind: 'bool' },
  },
  Secret: {
    1: { name: 'metadata', kind: OBJECT_META },
    2: { name: 'data', kind: 'bytesMap' },
    3: { name: 'type', kind: 'string' },
    4: { name: 'stringData', kind: 'stringMap' },
    5: { name: 'immutable', kind: 'bool' },
  },
  Service: { 1: { name: 'metadata', kind: OBJECT_META }, 2: { name: 'spec', kind: SERVICE_SPEC } },
  SelfSubjectAccessReview: {
    1: { name: 'metadata', kind: OBJECT_META },
    2: { name: 'spec', kind: SELF_SUBJECT_ACCESS_REVIEW_SPEC },
  },
};

export function isProtobuf(contentType: string | undefined): boolean {
  return (contentType ?? '').includes('application/vnd.kubernetes.protobuf');
}

/** The JSON form of a protobuf-encoded object, or 415 for kinds this server cannot decode. */
export function decodeProtobufObject(body: Buffer): Record<string, unknown> {
  if (!body.subarray(0, 4).equals(MAGIC))
    throw unsupported('the body does not start with the Kubernetes protobuf magic');
  const envelope = decodeMessage(body.subarray(4), {
    1: { name: 'typeMeta', kind: { 1: { name: 'apiVersion', kind: 'string' }, 2: { name: 'kind', kind: 'string' } } },
    2: { name: 'raw', kind: 'bytes' },
  }) as { typeMeta?: { apiVersion?: string; kind?: string }; raw?: string };
  const kind = envelope.typeMeta?.kind ?? '';
  const schema = OBJECT_SCHEMAS[kind];
  if (!schema || !RESOURCE_TYPES.some((type) => type.kind === kind))
    throw unsupported(`kube-sim cannot decode protobuf for kind ${JSON.stringify(kind)}`);
  const raw = Buffer.from(envelope.raw ?? '', 'base64');
  return { apiVersion: envelope.typeMeta?.apiVersion, kind, ...decodeMessage(raw, schema) };
}

function decodeMessage(buffer: Buffer, schema: Schema): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  const reader = { buffer, position: 0 };
  while (reader.position < buffer.length) {
    const tag = readVarint(reader);
    const fieldNumber = Number(tag >> 3n);
    const wireType = Number(tag & 7n);
    const field = schema[fieldNumber];
    const value = readValue(reader, wireType);
    if (!field) continue;
    const decoded = decodeField(field, value);
    if (decoded === undefined) continue;
    if (field.kind === 'stringMap' || field.kind === 'bytesMap') {
      result[field.name] = { ...(result[field.name] as object | undefined), ...(decoded as object) };
    } else if (field.repeated) {
      result[field.name] = [...((result[field.name] as unknown[] | undefined) ?? []), decoded];
    } else {
      result[field.name] = decoded;
    }
  }
  return result;
}

function decodeField(field: Field, value: bigint | Buffer): unknown {
  const kind = field.kind;
  if (typeof kind === 'object') return decodeMessage(asBytes(value), kind);
  switch (kind) {
    case 'string': {
      const text = asBytes(value).toString('utf8');
      return text === '' && !field.repeated ? undefined : text;
    }
    case 'bytes':
      return asBytes(value).toString('base64');
    case 'int': {
      const number = Number(BigInt.asIntN(64, value as bigint));
      return number === 0 && !field.keepZero ? undefined : number;
    }
    case 'bool':
      return value === 1n ? true : undefined;
    case 'stringMap':
    case 'bytesMap': {
      const entry = decodeMessage(asBytes(value), {
        1: { name: 'key', kind: 'string' },
        2: { name: 'value', kind: kind === 'stringMap' ? 'string' : 'bytes' },
      });
      return { [String(entry['key'] ?? '')]: entry['value'] ?? '' };
    }
    case 'intOrString': {
      const parsed = decodeMessage(asBytes(value), {
        1: { name: 'type', kind: 'int' },
        2: { name: 'intVal', kind: 'int', keepZero: true },
        3: { name: 'strVal', kind: 'string' },
      });
      return parsed['type'] === 1 ? parsed['strVal'] : parsed['intVal'];
    }
  }
}

function readValue(reader: { buffer: Buffer; position: number }, wireType: number): bigint | Buffer {
  switch (wireType) {
    case 0:
      return readVarint(reader);
    case 2: {
      const length = Number(readVarint(reader));
      const bytes = reader.buffer.subarray(reader.position, reader.position + length);
      reader.position += length;
      return bytes;
    }
    case 1:
      reader.position += 8;
      return 0n;
    case 5:
      reader.position += 4;
      return 0n;
    default:
      throw unsupported(`unexpected protobuf wire type ${wireType}`);
  }
}

function readVarint(reader: { buffer: Buffer; position: number }): bigint {
  let result = 0n;
  let shift = 0n;
  for (;;) {
    const byte = reader.buffer[reader.position++];
    if (byte === undefined) throw unsupported('truncated protobuf body');
    result |= BigInt(byte & 0x7f) << shift;
    if ((byte & 0x80) === 0) return result;
    shift += 7n;
  }
}

function asBytes(value: bigint | Buffer): Buffer {
  return Buffer.isBuffer(value) ? value : Buffer.alloc(0);
}

function unsupported(detail: string): ApiError {
  return new ApiError(
    415,
    'UnsupportedMediaType',
    `the body of the request was in an unknown format - accepted media types include: application/json, application/yaml (${detail})`,
  );
}
