// The one HTTP error type and its renderer (SPEC-DECISIONS "Errors"): handlers throw, onError renders
// `{"error": {"code", "message", "details"?}}`. Nothing else leaves: no stack, no SQL.
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { log } from '../config/log.js';

export class ApiError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export function renderError(err: Error, c: Context): Response {
  if (err instanceof ApiError) {
    return c.json({ error: { code: err.code, message: err.message, ...(err.details ? { details: err.details } : {}) } }, err.status);
  }
  log.error({ err: { name: err.name, message: err.message }, path: c.req.path }, 'unhandled API error');
  return c.json({ error: { code: 'INTERNAL', message: 'An internal error occurred; it has been logged.' } }, 500);
}

export function notFound(c: Context): Response {
  return c.json({ error: { code: 'NOT_FOUND', message: `No route for ${c.req.method} ${c.req.path}` } }, 404);
}
