// The one HTTP error type and its renderer (docs/decisions.md#errors): handlers throw, onError renders
// `{"error": {"code", "message", "details"?}}`. Nothing else leaves: no stack, no SQL.
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { log } from '../config/log.js';
import { FaultlineError } from '../errors/base.js';

/** Every machine code the JSON API answers with, and its HTTP status (one table; the OpenAPI document lists it). */
export const API_ERRORS = {
  BAD_PARAMETER: 400,
  UNKNOWN_PARAMETER: 400,
  INVALID_BODY: 400,
  UNAUTHENTICATED: 401,
  INVALID_CREDENTIALS: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  INTERNAL: 500,
  UNAVAILABLE: 503,
} as const satisfies Record<string, ContentfulStatusCode>;

export type ApiErrorCode = keyof typeof API_ERRORS;

/** The answers a caller may try again (after Retry-After): rate limited, or a dependency away. */
const RETRIABLE_STATUS: ReadonlySet<number> = new Set([429, 503]);

export class ApiError extends FaultlineError<ApiErrorCode> {
  readonly status: ContentfulStatusCode;

  constructor(
    code: ApiErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
    /** Extra response headers (`Retry-After`, `WWW-Authenticate`). */
    readonly headers?: Record<string, string>,
  ) {
    super(code, message, { retriable: RETRIABLE_STATUS.has(API_ERRORS[code]) });
    this.status = API_ERRORS[code];
  }
}

/** A 400 that names the query parameter (docs/decisions.md: "the message names it"). */
export function badParameter(name: string, problem: string, details: Record<string, unknown> = {}): ApiError {
  return new ApiError('BAD_PARAMETER', `Query parameter "${name}" ${problem}`, { parameter: name, ...details });
}

/**
 * The query parameters a route takes: any other is refused with 400 UNKNOWN_PARAMETER naming it and the accepted
 * ones, so a misspelt filter is never silently ignored. Routes check their query here (the one owner of the rule
 * and its wording); `repeatable` false also refuses a parameter given twice.
 */
export function acceptOnly(query: Record<string, string[]>, accepted: readonly string[], { repeatable = true } = {}): void {
  for (const [key, values] of Object.entries(query)) {
    if (!accepted.includes(key)) throw unknownParameter(key, accepted);
    if (!repeatable && values.length > 1) throw badParameter(key, 'is given more than once.');
  }
}

/** The 400 for a query parameter the route does not take (acceptOnly; list-params.ts for its bracketed filters). */
export function unknownParameter(key: string, accepted: readonly string[]): ApiError {
  const takes = accepted.length ? `this endpoint takes ${accepted.map((a) => `"${a}"`).join(', ')}` : 'this endpoint takes none';
  return new ApiError('UNKNOWN_PARAMETER', `Query parameter "${key}" is not accepted here; ${takes}.`, { parameter: key, accepted: [...accepted] });
}

// Hono's own exceptions (e.g. from a built-in middleware) keep their status, under a code of the table.
const CODE_OF_STATUS = new Map<number, ApiErrorCode>([
  [400, 'INVALID_BODY'], [401, 'UNAUTHENTICATED'], [403, 'FORBIDDEN'], [404, 'NOT_FOUND'],
  [413, 'PAYLOAD_TOO_LARGE'], [415, 'UNSUPPORTED_MEDIA_TYPE'], [429, 'RATE_LIMITED'],
]);

/**
 * No database connection within connectionTimeoutMillis (db/pool.ts): none came free in the pool (pg-pool), or a new
 * one did not open (pg). The database is busy or away, the request is not wrong: a 503 the caller may retry, not a 500
 * (a hostile review queued one tenant's ranges behind another's slow ones). Neither error has a code; its message is
 * the one mark.
 */
const NO_CONNECTION_IN_TIME = new Set(['timeout exceeded when trying to connect', 'Connection terminated due to connection timeout']);
const noConnectionInTime = (err: Error) => NO_CONNECTION_IN_TIME.has(err.message);

export function renderError(err: Error, c: Context): Response {
  if (err instanceof ApiError) {
    for (const [name, value] of Object.entries(err.headers ?? {})) c.header(name, value);
    return c.json({ error: { code: err.code, message: err.message, ...(err.details ? { details: err.details } : {}) } }, err.status);
  }
  if (err instanceof HTTPException && CODE_OF_STATUS.has(err.status)) {
    return renderError(new ApiError(CODE_OF_STATUS.get(err.status)!, err.message || 'The request was refused.'), c);
  }
  if (noConnectionInTime(err)) {
    log.warn({ path: c.req.path }, 'no database connection within the pool\'s wait: answered 503');
    return renderError(new ApiError('UNAVAILABLE', 'The service is busy; try again shortly.', { retryAfterSeconds: 1 }, { 'Retry-After': '1' }), c);
  }
  log.error({ err: { name: err.name, message: err.message }, path: c.req.path }, 'unhandled API error');
  return c.json({ error: { code: 'INTERNAL', message: 'An internal error occurred; it has been logged.' } }, 500);
}

export function notFound(c: Context): Response {
  return c.json({ error: { code: 'NOT_FOUND', message: `No route for ${c.req.method} ${c.req.path}` } }, 404);
}
