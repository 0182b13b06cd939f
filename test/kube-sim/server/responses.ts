// Writing answers: JSON bodies and `Status` objects shaped exactly like the real API server's,
// since kubectl prints `Error from server (<reason>): <message>` straight from them.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError, badRequest } from '../errors.js';

export interface StatusBody {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  status: 'Failure' | 'Success';
  message?: string;
  reason?: string;
  details?: object;
  code: number;
}

export function statusBodyFor(error: ApiError): StatusBody {
  const body: StatusBody = {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: error.message,
    reason: error.reason,
    code: error.code,
  };
  if (error.details) body.details = error.details;
  return body;
}

export function sendJson(res: ServerResponse, code: number, body: unknown, contentType = 'application/json'): void {
  const payload = JSON.stringify(body);
  res.writeHead(code, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(payload) });
  res.end(payload);
}

export function sendText(res: ServerResponse, code: number, text: string): void {
  res.writeHead(code, { 'Content-Type': 'text/plain', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

export function sendError(res: ServerResponse, error: unknown): void {
  const apiError =
    error instanceof ApiError ? error : new ApiError(500, 'InternalError', `Internal error occurred: ${String(error)}`);
  const headers: Record<string, string> = {};
  const retryAfter = apiError.details?.retryAfterSeconds;
  if (retryAfter !== undefined) headers['Retry-After'] = String(retryAfter);
  const payload = JSON.stringify(statusBodyFor(apiError));
  res.writeHead(apiError.code, {
    ...headers,
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(payload),
  });
  res.end(payload);
}

export async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Parses a request body as JSON; the real server answers 400 to undecodable bodies. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw badRequest(
      `the body of the request was in an unknown format - accepted media types include: application/json, application/yaml (${(error as Error).message})`,
    );
  }
}
