// The validation the real API server does that kguard's users can trip over: names, the
// Deployment selector/template relationship, required container fields, immutable selectors, a
// Job's restart policy and immutable template (jobs.ts).
// Messages follow k8s.io/apimachinery/pkg/util/validation/field so kubectl prints the same text.

import { invalid, type StatusCause } from '../errors.js';
import { resourceTypeForKind } from '../kinds.js';
import { jsonEqual } from '../json.js';
import { matchesLabelSelector, type LabelSelectorObject } from '../selectors.js';
import type { KubeObject } from '../types.js';
import { validateImmutability } from './immutability.js';
import { validateJob } from './jobs.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;

/** Throws 422 Invalid listing every problem. `previous` is the stored object on updates. */
export function validate(obj: KubeObject, previous?: KubeObject): void {
  const causes: StatusCause[] = [
    ...validateName(obj),
    ...(previous ? [...validateNoNewFinalizers(obj, previous), ...validateImmutability(obj, previous)] : []),
  ];
  const spec = (obj.spec ?? {}) as Json;
  switch (obj.kind) {
    case 'Deployment':
    case 'ReplicaSet':
    case 'StatefulSet':
    case 'DaemonSet':
      causes.push(...validateWorkload(spec));
      if (previous && !jsonEqual(previous.spec?.selector, spec.selector)) {
        causes.push(valueCause('spec.selector', spec.selector, 'field is immutable', 'FieldValueInvalid'));
      }
      break;
    case 'Pod':
      causes.push(...validateContainers(spec.containers, 'spec.containers'));
      break;
    case 'CustomResourceDefinition':
      // apiextensions validation: the name is fixed by the names it serves.
      if (obj.metadata?.name !== `${spec.names?.plural}.${spec.group}`) {
        causes.push(valueCause('metadata.name', obj.metadata?.name ?? '', 'must be spec.names.plural+"."+spec.group'));
      }
      break;
    case 'Job':
      causes.push(
        ...validateContainers(spec.template?.spec?.containers, 'spec.template.spec.containers'),
        ...validateJob(obj, previous),
      );
      break;
    case 'Secret':
    case 'ConfigMap':
      causes.push(...validateDataSize(obj));
      break;
  }
  if (causes.length > 0) {
    const type = resourceTypeForKind(obj.kind);
    throw invalid(obj.kind, type?.group ?? '', obj.metadata?.name ?? '', causes);
  }
}

/**
 * apimachinery pkg/api/validation/objectmeta.go ValidateObjectMetaUpdate → ValidateNoNewFinalizers:
 * an object being deleted can lose finalizers, never gain one.
 */
function validateNoNewFinalizers(obj: KubeObject, previous: KubeObject): StatusCause[] {
  if (!previous.metadata.deletionTimestamp) return [];
  const before = new Set(previous.metadata.finalizers ?? []);
  const extra = [...new Set(obj.metadata.finalizers ?? [])].filter((finalizer) => !before.has(finalizer)).sort();
  if (extra.length === 0) return [];
  return [
    {
      reason: 'FieldValueForbidden',
      field: 'metadata.finalizers',
      message: `Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{${extra.map((f) => JSON.stringify(f)).join(', ')}}`,
    },
  ];
}

function validateName(obj: KubeObject): StatusCause[] {
  const name = obj.metadata?.name;
  // The store derives the name from generateName after admission.
  if (!name && obj.metadata?.generateName) return [];
  if (!name)
    return [
      {
        reason: 'FieldValueRequired',
        field: 'metadata.name',
        message: 'Required value: name or generateName is required',
      },
    ];
  if (obj.kind === 'Namespace' && !DNS1123_LABEL.test(name)) {
    return [
      valueCause(
        'metadata.name',
        name,
        "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
      ),
    ];
  }
  if (obj.kind === 'Service' && !DNS1035_LABEL.test(name)) {
    return [
      valueCause(
        'metadata.name',
        name,
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
      ),
    ];
  }
  if (name.length > 253 || !DNS1123_SUBDOMAIN.test(name)) {
    return [
      valueCause(
        'metadata.name',
        name,
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
      ),
    ];
  }
  return [];
}

/** core.MaxSecretSize: the most a Secret's or a ConfigMap's data may hold, decoded. */
const MAX_DATA_BYTES = 1024 * 1024;

/**
 * pkg/apis/core/validation ValidateSecret and ValidateConfigMap: the values' bytes (a Secret's
 * decoded from base64; a ConfigMap's data and binaryData) may not add up to more than 1 MiB,
 * reported with field.TooLong on `data` (Secret) or on the empty path, printed `[]` (ConfigMap).
 */
function validateDataSize(obj: KubeObject): StatusCause[] {
  const values = (field: string) =>
    Object.values((obj[field] ?? {}) as Record<string, unknown>).filter(
      (value): value is string => typeof value === 'string',
    );
  const total =
    obj.kind === 'Secret'
      ? values('data').reduce((sum, value) => sum + Buffer.from(value, 'base64').length, 0)
      : values('data').reduce((sum, value) => sum + Buffer.byteLength(value), 0) +
        values('binaryData').reduce((sum, value) => sum + Buffer.from(value, 'base64').length, 0);
  if (total <= MAX_DATA_BYTES) return [];
  return [
    {
      reason: 'FieldValueTooLong',
      field: obj.kind === 'Secret' ? 'data' : '[]',
      message: `Too long: may not be more than ${MAX_DATA_BYTES} bytes`,
    },
  ];
}

function validateWorkload(spec: Json): StatusCause[] {
  const causes: StatusCause[] = [];
  if (typeof spec.replicas === 'number' && spec.replicas < 0) {
    causes.push(valueCause('spec.replicas', spec.replicas, 'must be greater than or equal to 0'));
  }
  const selector = spec.selector as LabelSelectorObject | undefined;
  const selectorIsEmpty =
    !selector ||
    (Object.keys(selector.matchLabels ?? {}).length === 0 && (selector.matchExpressions ?? []).length === 0);
  if (!selector) causes.push({ reason: 'FieldValueRequired', field: 'spec.selector', message: 'Required value' });
  else if (selectorIsEmpty)
    causes.push(valueCause('spec.selector', selector, 'empty selector is invalid for deployment'));
  const templateLabels = spec.template?.metadata?.labels as Record<string, string> | undefined;
  if (!selectorIsEmpty && !matchesLabelSelector(selector, templateLabels ?? {})) {
    causes.push(
      valueCause('spec.template.metadata.labels', templateLabels ?? {}, '`selector` does not match template `labels`'),
    );
  }
  causes.push(...validateContainers(spec.template?.spec?.containers, 'spec.template.spec.containers'));
  return causes;
}

function validateContainers(containers: unknown, field: string): StatusCause[] {
  if (!Array.isArray(containers) || containers.length === 0)
    return [{ reason: 'FieldValueRequired', field, message: 'Required value' }];
  const causes: StatusCause[] = [];
  const seen = new Set<string>();
  containers.forEach((container: Json, index) => {
    const at = `${field}[${index}]`;
    if (!container?.name) causes.push({ reason: 'FieldValueRequired', field: `${at}.name`, message: 'Required value' });
    else if (seen.has(container.name))
      causes.push({
        reason: 'FieldValueDuplicate',
        field: `${at}.name`,
        message: `Duplicate value: "${container.name}"`,
      });
    else if (!DNS1123_LABEL.test(container.name)) {
      causes.push(
        valueCause(
          `${at}.name`,
          container.name,
          "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
        ),
      );
    }
    if (container?.name) seen.add(container.name);
    if (!container?.image)
      causes.push({ reason: 'FieldValueRequired', field: `${at}.image`, message: 'Required value' });
  });
  return causes;
}

function valueCause(field: string, value: unknown, detail: string, reason = 'FieldValueInvalid'): StatusCause {
  return { reason, field, message: `Invalid value: ${goFormat(value)}: ${detail}` };
}

/** Roughly how Go's %#v prints the values in validation messages. */
function goFormat(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (
    value &&
    typeof value === 'object' &&
    !Array.isArray(value) &&
    Object.values(value).every((item) => typeof item === 'string')
  ) {
    const entries = Object.entries(value as Record<string, string>).map(
      ([key, item]) => `${JSON.stringify(key)}:${JSON.stringify(item)}`,
    );
    return `map[string]string{${entries.join(', ')}}`;
  }
  return JSON.stringify(value);
}
