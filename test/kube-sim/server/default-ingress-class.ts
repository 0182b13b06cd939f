// The DefaultIngressClass admission plugin (plugin/pkg/admission/network/defaultingressclass/
// admission.go), on create only: an Ingress with neither spec.ingressClassName nor the
// kubernetes.io/ingress.class annotation gets the name of the IngressClass annotated
// ingressclass.kubernetes.io/is-default-class: "true"; none: left as it is; more than one: the
// create is refused ("%d default IngressClasses were found, only 1 allowed").

import { ApiError } from '../errors.js';
import type { Store } from '../store.js';
import type { KubeObject } from '../types.js';

export const DEFAULT_CLASS_ANNOTATION = 'ingressclass.kubernetes.io/is-default-class';
const LEGACY_CLASS_ANNOTATION = 'kubernetes.io/ingress.class';

export function admitDefaultIngressClass(store: Store, obj: KubeObject): void {
  if (obj.kind !== 'Ingress' || obj.apiVersion !== 'networking.k8s.io/v1') return;
  if (obj.spec?.ingressClassName !== undefined && obj.spec.ingressClassName !== null) return;
  if (obj.metadata.annotations?.[LEGACY_CLASS_ANNOTATION] !== undefined) return;
  const defaults = store
    .list('IngressClass')
    .filter((ingressClass) => ingressClass.metadata.annotations?.[DEFAULT_CLASS_ANNOTATION] === 'true');
  if (defaults.length === 0) return;
  if (defaults.length > 1) {
    throw new ApiError(
      403,
      'Forbidden',
      `ingresses.networking.k8s.io "${obj.metadata.name}" is forbidden: Internal error occurred: ${defaults.length} default IngressClasses were found, only 1 allowed`,
    );
  }
  obj.spec = { ...(obj.spec ?? {}), ingressClassName: defaults[0]!.metadata.name };
}
