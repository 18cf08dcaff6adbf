// The JSON object body of a write route: its content type, its size, valid JSON, an object. Each refusal is the
// 4xx that names it (docs/decisions.md#errors).
import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { ApiError } from './errors.js';

const JSON_TYPE = /^application\/(?:[a-z0-9.+-]+\+)?json\s*(?:;.*)?$/i;

/** A middleware refusing a body over `maxSize` bytes with 413, before it is read. */
export const limitJsonBody = (maxSize: number): MiddlewareHandler =>
  bodyLimit({ maxSize, onError: () => { throw new ApiError('PAYLOAD_TOO_LARGE', `The body must be at most ${maxSize} bytes.`); } });

/** The body as a JSON object; 415 for another content type, 400 for text that is not JSON or not an object. */
export async function jsonObjectBody(c: { req: { header(n: string): string | undefined; text(): Promise<string> } }): Promise<Record<string, unknown>> {
  if (!JSON_TYPE.test(c.req.header('content-type') ?? '')) throw new ApiError('UNSUPPORTED_MEDIA_TYPE', 'The body must be sent as Content-Type: application/json.');
  let raw: unknown;
  try { raw = JSON.parse(await c.req.text()); } catch { throw new ApiError('INVALID_BODY', 'The body is not valid JSON.', { field: 'body' }); }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new ApiError('INVALID_BODY', 'The body must be a JSON object.', { field: 'body' });
  return raw as Record<string, unknown>;
}
