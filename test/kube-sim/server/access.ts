// Authorization, as far as the tests need it: the simulated user may do everything (as a
// cluster-admin binding would allow) except what a test denies with `faults.deny(...)`. A denied
// request is answered 403 with the RBAC authorizer's words, and a SelfSubjectAccessReview about
// it says allowed: false, as a real API server with RBAC does:
// - the review itself: pkg/registry/authorization/selfsubjectaccessreview/rest.go (the object is
//   not stored; the answer is the spec with a status, 201 Created), validated by
//   pkg/apis/authorization/validation/validation.go ValidateSelfSubjectAccessReview;
// - the decision and its reason: plugin/pkg/auth/authorizer/rbac/rbac.go (allowed: "RBAC:
//   allowed by <binding>"; not allowed: no opinion, an empty reason, which the status omits).

import { ApiError } from '../errors.js';
import type { ResourceType } from '../kinds.js';

/** What a request or a review asks to do (authorizer.Attributes of a resource request). */
export interface AccessAttributes {
  verb: string;
  group: string;
  resource: string;
  subresource?: string;
  /** undefined or '' for cluster-scoped resources and requests across all namespaces. */
  namespace?: string;
  name?: string;
}

/** A denial a test sets: this verb on this resource (any group unless given), in one namespace or all. */
export interface DeniedRule {
  verb: string;
  resource: string;
  group?: string;
  namespace?: string;
}

const USER = 'system:anonymous';
/** Who allows everything else, named in an allowed review's reason as rbac.go words it. */
const ALLOWED_BY = `RBAC: allowed by ClusterRoleBinding "kube-sim-admin" of ClusterRole "cluster-admin" to User "${USER}"`;

export class AccessControl {
  private denied: DeniedRule[] = [];

  deny(rule: DeniedRule): void {
    this.denied.push(rule);
  }

  clear(): void {
    this.denied = [];
  }

  allows(attributes: AccessAttributes): boolean {
    const resource = attributes.subresource ? `${attributes.resource}/${attributes.subresource}` : attributes.resource;
    return !this.denied.some(
      (rule) =>
        (rule.verb === '*' || rule.verb === attributes.verb) &&
        rule.resource === resource &&
        (rule.group === undefined || rule.group === attributes.group) &&
        (rule.namespace === undefined || rule.namespace === (attributes.namespace ?? '')),
    );
  }
}

/** The 403 a denied request gets: `configmaps "x" is forbidden: User "system:anonymous" cannot delete resource …`. */
export function forbiddenError(attributes: AccessAttributes, type: Pick<ResourceType, 'plural' | 'group'>): ApiError {
  const qualified = type.group === '' ? type.plural : `${type.plural}.${type.group}`;
  const resource = attributes.subresource ? `${attributes.resource}/${attributes.subresource}` : attributes.resource;
  const subject = attributes.name !== undefined ? `${qualified} "${attributes.name}"` : qualified;
  const scope = attributes.namespace ? `in the namespace "${attributes.namespace}"` : 'at the cluster scope';
  return new ApiError(
    403,
    'Forbidden',
    `${subject} is forbidden: User "${USER}" cannot ${attributes.verb} resource "${resource}" in API group "${type.group}" ${scope}`,
    {
      name: attributes.name,
      group: type.group || undefined,
      kind: type.plural,
    },
  );
}

interface ReviewBody {
  apiVersion?: string;
  kind?: string;
  metadata?: Record<string, unknown>;
  spec?: {
    resourceAttributes?: {
      namespace?: string;
      verb?: string;
      group?: string;
      version?: string;
      resource?: string;
      subresource?: string;
      name?: string;
    };
    nonResourceAttributes?: { path?: string; verb?: string };
  };
}

/** POST …/selfsubjectaccessreviews: the review with its status, never stored. */
export function reviewSelfAccess(body: unknown, access: AccessControl): { code: number; body: object } {
  const review = (body ?? {}) as ReviewBody;
  const spec = review.spec ?? {};
  const resourceAttributes = spec.resourceAttributes;
  if ((resourceAttributes === undefined) === (spec.nonResourceAttributes === undefined)) {
    // validation.go ValidateSelfSubjectAccessReviewSpec
    const value = JSON.stringify(spec);
    throw new ApiError(
      422,
      'Invalid',
      `SelfSubjectAccessReview.authorization.k8s.io "" is invalid: spec.resourceAttributes: Invalid value: ${value}: exactly one of nonResourceAttributes or resourceAttributes must be specified`,
      {
        group: 'authorization.k8s.io',
        kind: 'SelfSubjectAccessReview',
        causes: [
          {
            reason: 'FieldValueInvalid',
            field: 'spec.resourceAttributes',
            message: `Invalid value: ${value}: exactly one of nonResourceAttributes or resourceAttributes must be specified`,
          },
        ],
      },
    );
  }
  const allowed = resourceAttributes
    ? access.allows({
        verb: resourceAttributes.verb ?? '',
        group: resourceAttributes.group ?? '',
        resource: resourceAttributes.resource ?? '',
        subresource: resourceAttributes.subresource || undefined,
        namespace: resourceAttributes.namespace,
        name: resourceAttributes.name,
      })
    : true;
  // Decoded and encoded again, as the real server does: empty strings go (omitempty).
  const attributes = (value: object | undefined) =>
    value
      ? Object.fromEntries(Object.entries(value).filter(([, field]) => field !== '' && field !== undefined))
      : undefined;
  return {
    code: 201,
    body: {
      kind: 'SelfSubjectAccessReview',
      apiVersion: 'authorization.k8s.io/v1',
      metadata: { creationTimestamp: null },
      spec: {
        resourceAttributes: attributes(spec.resourceAttributes),
        nonResourceAttributes: attributes(spec.nonResourceAttributes),
      },
      status: allowed ? { allowed: true, reason: ALLOWED_BY } : { allowed: false },
    },
  };
}
