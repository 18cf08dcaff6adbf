// The request kit every router reads its request with (docs/decisions.md#a-request-kit-and-write-endpoints): the
// JSON body (its size limit, its content type, valid JSON, an object), path ids, who the caller is by e-mail,
// If-None-Match and Accept-Encoding, and the form an answer is asked in (`format`, CSV). Each refusal is the 4xx
// that names it (docs/decisions.md#errors); the wording is written here once.
import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { createMiddleware } from 'hono/factory';
import type pg from 'pg';
import { isStorableText, MAX_ID_LENGTH as MAX_TEXT_ID } from '../domain/storable-text.js';
import { acceptOnly, ApiError, badParameter } from './errors.js';

/** Whether text may travel to Postgres (no NUL, no lone surrogate); its owner is domain/storable-text.ts. */
export { isStorableText };

/** application/json and its `+json` kin, with any parameters (charset). */
const JSON_TYPE = /^application\/(?:[a-z0-9.+-]+\+)?json\s*(?:;.*)?$/i;

/** What a refusal calls the body ("The body", "The login body"). */
interface Noun { noun?: string }

function unsupported(noun: string): ApiError {
  return new ApiError('UNSUPPORTED_MEDIA_TYPE', `${noun} must be sent as Content-Type: application/json.`);
}

/** A middleware refusing a body over `maxSize` bytes with 413, before it is read (declared or streamed). */
export const limitBody = (maxSize: number, { noun = 'The body' }: Noun = {}): MiddlewareHandler =>
  bodyLimit({ maxSize, onError: () => { throw new ApiError('PAYLOAD_TOO_LARGE', `${noun} must be at most ${maxSize} bytes.`); } });

/**
 * 415 for a body sent with a Content-Encoding (gzip, deflate, br): nothing here inflates a request body, so it
 * would otherwise be read as bytes and refused as "not valid JSON", and no route decompresses what a caller
 * sends (a zip bomb costs nothing). RFC 9110 15.5.16 names the status.
 */
function refuseEncoded(header: (name: string) => string | undefined, noun: string): void {
  const coding = (header('content-encoding') ?? '').trim().toLowerCase();
  if (coding === '' || coding === 'identity') return;
  throw new ApiError('UNSUPPORTED_MEDIA_TYPE', `${noun} must be sent without Content-Encoding (not "${coding.slice(0, 40)}"): the API reads plain JSON.`);
}

/** A middleware refusing any content type but JSON, or an encoded body, with 415 before anything else is looked at (the login). */
export const requireJsonType = ({ noun = 'The body' }: Noun = {}): MiddlewareHandler =>
  createMiddleware(async (c, next) => {
    refuseEncoded((name) => c.req.header(name), noun);
    if (!JSON_TYPE.test(c.req.header('content-type') ?? '')) throw unsupported(noun);
    await next();
  });

type BodyContext = { req: { header(name: string): string | undefined; text(): Promise<string> } };

/**
 * The body as parsed JSON: 415 for another content type or an encoded body, 400 for text that is not JSON.
 * `optional`: an empty body (of any type) is `undefined`, for actions whose body only narrows them (the board's
 * acknowledgement).
 */
export async function jsonBody(c: BodyContext, { noun = 'The body', optional = false }: Noun & { optional?: boolean } = {}): Promise<unknown> {
  refuseEncoded((name) => c.req.header(name), noun);
  const text = await c.req.text();
  if (optional && text.trim() === '') return undefined;
  if (!JSON_TYPE.test(c.req.header('content-type') ?? '')) throw unsupported(noun);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ApiError('INVALID_BODY', 'The body is not valid JSON.', { field: 'body' });
  }
}

/** The body as a JSON object (jsonBody, then 400 for an array, a string, a number or null); optional and empty: `{}`. */
export async function jsonObjectBody(c: BodyContext, options: Noun & { optional?: boolean } = {}): Promise<Record<string, unknown>> {
  const raw = await jsonBody(c, options);
  if (raw === undefined && options.optional) return {};
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new ApiError('INVALID_BODY', 'The body must be a JSON object.', { field: 'body' });
  return raw as Record<string, unknown>;
}

/** A path's numeric id (a bigint column): 400 naming the parameter and what it is ("an alarm", "a finding"). */
export function wholeNumberId(text: string, what: string, name = 'id'): number {
  if (!/^\d{1,15}$/.test(text)) throw new ApiError('BAD_PARAMETER', `Path parameter "${name}" must be ${what} id (a positive whole number).`, { parameter: name });
  return Number(text);
}

/** Whether `text` can be a text id: 1 to MAX_ID_LENGTH characters Postgres can store (a NUL, `%00`, would be a 500 there). */
const isTextId = (text: string): boolean => text.length > 0 && text.length <= MAX_TEXT_ID && isStorableText(text);

/** A path's text id (an alarm rule's, a recipient's, a power line's), or a 400 naming the parameter. */
export function textId(text: string, what: string, name = 'id'): string {
  if (!isTextId(text)) throw new ApiError('BAD_PARAMETER', `Path parameter "${name}" must be ${what} id (1 to ${MAX_TEXT_ID} characters of text).`, { parameter: name });
  return text;
}

/** The `powerLine` query parameter of a list narrowed to one feeder: undefined when not given, else a text id or a 400. */
export function powerLineParameter(c: Context): string | undefined {
  const line = c.req.query('powerLine');
  if (line !== undefined && !isTextId(line)) throw badParameter('powerLine', `must be a power line id (1 to ${MAX_TEXT_ID} characters of text).`);
  return line;
}

/**
 * Who did it, as audit columns and timelines show it: the caller's e-mail (their id once the account is gone).
 * The caller is `c.get('caller')` (auth/caller.ts); typed by shape so this kit imports nothing of auth/, which uses it.
 */
export async function callerEmail(db: Pick<pg.ClientBase, 'query'>, caller: { userId: number | null }): Promise<string> {
  const { rows: [who] } = await db.query<{ email: string }>('select email from users where id = $1', [caller.userId]);
  return who?.email ?? `user ${caller.userId}`;
}

/** Whether an If-None-Match header names `etag` (a list, weak forms and `*` included, RFC 9110 13.1.2). */
export function matchesEtag(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(',').some((tag) => { const t = tag.trim(); return t === '*' || t === etag || t === `W/${etag}`; });
}

/** Whether Accept-Encoding takes gzip (and does not refuse it with q=0). */
export function acceptsGzip(acceptEncoding: string | undefined): boolean {
  if (!acceptEncoding) return false;
  return acceptEncoding.split(',').some((part) => {
    const [coding, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return (coding === 'gzip' || coding === 'x-gzip') && (q === undefined || Number(q.slice(2)) > 0);
  });
}

/**
 * The `format` query parameter of an answer offered in several forms, on a route that takes no other parameter:
 * one of `formats`, or undefined when not given; anything else is a 400 naming the forms.
 */
export function formatParameter<F extends string>(c: Context, formats: readonly F[]): F | undefined {
  acceptOnly(c.req.queries(), ['format']);
  const format = c.req.query('format');
  if (format === undefined) return undefined;
  if (!(formats as readonly string[]).includes(format)) throw badParameter('format', `must be ${formats.map((f) => `"${f}"`).join(' or ')}`);
  return format as F;
}

/** Whether a CSV answer is asked for: `format=csv`, or no format and an Accept header naming text/csv. */
export const wantsCsv = (c: Context, format: string | undefined): boolean => format === 'csv' || (format === undefined && (c.req.header('accept') ?? '').includes('text/csv'));

/** A name's characters safe in a file name (Content-Disposition): anything outside [A-Za-z0-9_-] becomes `_`. */
export const fileNamePart = (name: string): string => name.replace(/[^A-Za-z0-9_-]/g, '_');

/** The headers of a CSV answer saved as `fileName` (build it with fileNamePart from what the caller chose). */
export const csvAttachment = (fileName: string): Record<string, string> => ({
  'content-type': 'text/csv; charset=utf-8', 'content-disposition': `attachment; filename="${fileName}"`,
});
