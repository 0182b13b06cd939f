// Errors the simulated API server answers with. Each carries what the real API server puts in
// its `Status` body, because kubectl builds its messages from `reason`, `message` and `details`
// (e.g. `Error from server (NotFound): deployments.apps "web" not found`).

import { qualifiedResource } from './kinds.js';

export interface StatusCause {
  reason?: string;
  message: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  /** The plural resource name ("deployments"), as the real server fills it. */
  kind?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export class ApiError extends Error {
  constructor(
    public code: number,
    /** 'NotFound' | 'AlreadyExists' | 'Conflict' | 'Invalid' | 'Forbidden' | 'BadRequest' | ... */
    public reason: string,
    message: string,
    public details?: StatusDetails,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

interface Resource {
  plural: string;
  group: string;
}

function detailsFor(resource: Resource, name: string): StatusDetails {
  return { name, group: resource.group || undefined, kind: resource.plural };
}

export function notFound(resource: Resource, name: string): ApiError {
  return new ApiError(
    404,
    'NotFound',
    `${qualifiedResource(resource)} "${name}" not found`,
    detailsFor(resource, name),
  );
}

export function alreadyExists(resource: Resource, name: string): ApiError {
  return new ApiError(
    409,
    'AlreadyExists',
    `${qualifiedResource(resource)} "${name}" already exists`,
    detailsFor(resource, name),
  );
}

/** The optimistic-concurrency failure: the caller's resourceVersion is stale. */
export function conflict(resource: Resource, name: string): ApiError {
  return new ApiError(
    409,
    'Conflict',
    `Operation cannot be fulfilled on ${qualifiedResource(resource)} "${name}": the object has been modified; please apply your changes to the latest version and try again`,
    detailsFor(resource, name),
  );
}

/**
 * apimachinery errors.NewConflict around a failed precondition: `Operation cannot be fulfilled on
 * <resource> "<name>": <why>`. `resource` is what the caller passed upstream (a plural resource
 * for updates, a Kind for registry/rest/delete.go BeforeDelete).
 */
export function preconditionConflict(resource: Resource, name: string, why: string): ApiError {
  return new ApiError(
    409,
    'Conflict',
    `Operation cannot be fulfilled on ${qualifiedResource(resource)} "${name}": ${why}`,
    detailsFor(resource, name),
  );
}

/** 422 with one cause per bad field, worded like the real validation messages. */
export function invalid(kind: string, group: string, name: string, causes: StatusCause[]): ApiError {
  const qualifiedKind = group === '' ? kind : `${kind}.${group}`;
  const summary = causes.map((cause) => (cause.field ? `${cause.field}: ${cause.message}` : cause.message)).join(', ');
  const list = causes.length > 1 ? `[${summary}]` : summary;
  return new ApiError(422, 'Invalid', `${qualifiedKind} "${name}" is invalid: ${list}`, {
    name,
    group: group || undefined,
    kind,
    causes,
  });
}

export function badRequest(message: string): ApiError {
  return new ApiError(400, 'BadRequest', message);
}
