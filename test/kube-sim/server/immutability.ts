// Updates the real API server refuses that a rollback may try: a claim's storage request going
// down, the data of an immutable ConfigMap or Secret, a Secret's type
// (pkg/apis/core/validation/validation.go ValidatePersistentVolumeClaimUpdate,
// ValidateConfigMapUpdate, ValidateSecretUpdate). Messages as field.Forbidden / ValidateImmutableField
// print them.

import type { StatusCause } from '../errors.js';
import { jsonEqual } from '../json.js';
import { parseQuantity } from '../controllers/quantity.js';
import type { KubeObject } from '../types.js';

const IMMUTABLE_WHEN_SET = 'field is immutable when `immutable` is set';

export function validateImmutability(obj: KubeObject, previous: KubeObject): StatusCause[] {
  switch (obj.kind) {
    case 'PersistentVolumeClaim':
      return validateClaimUpdate(obj, previous);
    case 'ConfigMap':
      return validateImmutableData(obj, previous, ['data', 'binaryData']);
    case 'Secret':
      return [...validateSecretType(obj, previous), ...validateImmutableData(obj, previous, ['data', 'stringData'])];
    default:
      return [];
  }
}

/**
 * A claim's spec is immutable except resources.requests (and volumeAttributesClassName) of a bound
 * claim. With RecoverVolumeExpansionFailure (beta, on by default since 1.32) a request may go down
 * to recover from a failed expansion, but never to status.capacity or below; before 1.32 any
 * decrease was "field can not be less than previous value". An empty volumeName may be set once
 * (the PV controller binds that way).
 */
function validateClaimUpdate(obj: KubeObject, previous: KubeObject): StatusCause[] {
  const causes: StatusCause[] = [];
  const bound = obj.status?.phase === 'Bound';
  const storage = (claim: KubeObject): string | undefined => claim.spec?.resources?.requests?.storage;
  const comparable = (claim: KubeObject): unknown => {
    const spec = structuredClone(claim.spec ?? {});
    // The PV controller sets volumeName once: an empty volumeName may become anything.
    if (!previous.spec?.volumeName) delete spec.volumeName;
    if (bound && spec.resources?.requests) spec.resources.requests.storage = storage(previous);
    delete spec.volumeAttributesClassName;
    return spec;
  };
  if (!jsonEqual(comparable(obj), comparable(previous))) {
    causes.push({
      reason: 'FieldValueForbidden',
      field: 'spec',
      message:
        'Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims',
    });
  }
  const newSize = parseQuantity(storage(obj));
  if (newSize < parseQuantity(storage(previous)) && newSize <= parseQuantity(previous.status?.capacity?.storage)) {
    causes.push({
      reason: 'FieldValueForbidden',
      field: 'spec.resources.requests.storage',
      message: 'Forbidden: field can not be less than status.capacity',
    });
  }
  return causes;
}

/** ConfigMap / Secret with `immutable: true`: it stays immutable, and its data cannot change. */
function validateImmutableData(obj: KubeObject, previous: KubeObject, dataFields: string[]): StatusCause[] {
  if (previous['immutable'] !== true) return [];
  const causes: StatusCause[] = [];
  if (obj['immutable'] !== true) causes.push(forbidden('immutable'));
  for (const field of dataFields)
    if (!jsonEqual(obj[field] ?? null, previous[field] ?? null)) causes.push(forbidden(field));
  return causes;
}

function validateSecretType(obj: KubeObject, previous: KubeObject): StatusCause[] {
  const type = obj['type'] || previous['type'];
  if (type === previous['type']) return [];
  return [
    {
      reason: 'FieldValueInvalid',
      field: 'type',
      message: `Invalid value: ${JSON.stringify(type)}: field is immutable`,
    },
  ];
}

function forbidden(field: string): StatusCause {
  return { reason: 'FieldValueForbidden', field, message: `Forbidden: ${IMMUTABLE_WHEN_SET}` };
}
