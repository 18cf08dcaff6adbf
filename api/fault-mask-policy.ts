// The one place the fault mask is applied to readers (docs/decisions.md#masking; rules: domain/fault-masking.ts).
// It is part of the `auth` middleware app.ts hands to every router, so every authenticated route passes
// through it by construction, knowing the caller: for an organisation with MaskFaultDetails, a query that
// would reveal the fault class is refused before the endpoint reads it, and every answer (JSON, or any text
// such as CSV or XML; gzip-encoded or not) is masked after it. Only the integration outputs named below, read with an
// integration key (a machine's credential, docs/decisions.md#integration-keys-and-the-mask), are left as they
// are: they feed the utility's own systems (DNP3, IEC 104), like the SOAP server, which has no `auth` of this
// kind; each says so itself with the route option `integrationOutput` (auth/require-auth.ts), so this policy
// names no route. A person's login reads them masked like every other answer. A route that streams text it masks cell
// by cell itself says so (`routeMasksItself`): its answer is masked again line by line as it passes, never
// read whole (the reliability export: a year of incidents held in memory per request).
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { gunzip as gunzipCallback, gzip as gzipCallback, constants } from 'node:zlib';
import type { Context, MiddlewareHandler } from 'hono';
import { createMiddleware } from 'hono/factory';
import { maskedParametersProblem, maskFaultClass, maskText, type UnmaskedNames } from '../domain/fault-masking.js';
import type { AuthEnv } from './auth/caller.js';
import { matchesEtag } from './request.js';
import { badParameter } from './errors.js';

const gzip = promisify(gzipCallback);
const gunzip = promisify(gunzipCallback);

/** One masked answer: its text (null when the mask changed nothing), ETag and gzip copy made on demand. */
interface Masked { text: string | null; etag: string | null; gzipped?: Promise<Uint8Array<ArrayBuffer>> }

/**
 * Masked answers by the strong ETag of their unmasked bytes (fleet answers: map-data). The mask is a pure
 * function of those bytes, so the ETag names its result: a masked organisation's map poll costs a lookup, not
 * a parse, mask and gzip of 2.5 MB (~200 ms of a loaded core per request, docs/decisions.md#masking).
 */
class MaskedByEtag {
  private readonly entries = new Map<string, Masked>();
  private chars = 0;
  /** At most `maxChars` of masked text (32 M: a dozen maps of 10,000 devices) in `maxEntries`, the oldest dropped first. */
  constructor(private readonly maxChars = 32_000_000, private readonly maxEntries = 1_000) {}
  get(key: string | null): Masked | undefined { return key ? this.entries.get(key) : undefined; }
  set(key: string | null, m: Masked): void {
    if (!key || this.entries.has(key)) return;
    this.entries.set(key, m);
    this.chars += m.text?.length ?? 0;
    for (const [k, old] of this.entries) {
      if ((this.chars <= this.maxChars && this.entries.size <= this.maxEntries) || this.entries.size === 1) break;
      this.entries.delete(k);
      this.chars -= old.text?.length ?? 0;
    }
  }
}

async function mask(res: Response, json: boolean, gzipped: boolean, names: UnmaskedNames): Promise<Masked> {
  const bytes = Buffer.from(await res.clone().arrayBuffer());
  const text = (gzipped ? await gunzip(bytes) : bytes).toString('utf8');
  let before = text;
  let after: string;
  if (json) {
    const value = JSON.parse(text) as unknown;
    before = JSON.stringify(value);
    after = JSON.stringify(maskFaultClass(value, names));
  } else {
    after = maskText(text);
  }
  // The ETag is made of what the caller reads, never taken from the route: a route's ETag may hash the unmasked
  // body (or anything else), and would then name the hidden class (docs/decisions.md#masking).
  const etag = res.headers.has('etag') ? `"${createHash('sha1').update(after).digest('base64url')}"` : null;
  return { text: after === before ? null : after, etag };
}

/**
 * The answer as the masked caller reads it (the same bytes when the mask changes nothing), with an ETag of
 * those bytes, and If-None-Match judged here against it: the route never saw the caller's condition.
 */
async function maskedAnswer(res: Response, names: UnmaskedNames, ifNoneMatch: string | undefined, memo: MaskedByEtag): Promise<Response> {
  // The route never saw a condition (they are taken off the request), so a 304 of its own is a route's bug:
  // passing it on would answer a question the caller could not have asked of the masked body.
  if (res.status === 304) throw new Error(`a route answered 304 to a masked caller without a condition (${res.headers.get('etag') ?? 'no ETag'})`);
  const type = res.headers.get('content-type') ?? '';
  const json = /^application\/(?:[a-z0-9.+-]+\+)?json/i.test(type);
  // Any other text is masked by word: CSV, plain text, XML (the DNP3 device profile).
  if (!res.body || res.status === 204 || !(json || /^(?:text\/|application\/(?:[a-z0-9.+-]+\+)?xml)/i.test(type))) return res;
  const gzipped = /gzip/i.test(res.headers.get('content-encoding') ?? '');
  const unmaskedEtag = res.status === 200 ? res.headers.get('etag') : null;
  const key = unmaskedEtag && `${json ? 'json' : 'text'} ${unmaskedEtag}`;
  let m = memo.get(key);
  if (!m) {
    m = await mask(res, json, gzipped, names);
    memo.set(key, m);
  }
  const headers = new Headers(res.headers);
  if (m.etag) {
    headers.set('etag', m.etag);
    if (res.status === 200 && matchesEtag(ifNoneMatch, m.etag)) {
      await res.body.cancel();
      for (const h of ['content-encoding', 'content-type', 'content-length']) headers.delete(h);
      return new Response(null, { status: 304, headers });
    }
  }
  // Unchanged (an answer with no fault in it): the original bytes stand.
  if (m.text === null) return new Response(res.body, { status: res.status, headers });
  await res.body.cancel();
  headers.delete('content-length');
  if (!gzipped) return new Response(m.text, { status: res.status, headers });
  const text = m.text;
  m.gzipped ??= gzip(text, { level: constants.Z_BEST_SPEED }).then((b) => new Uint8Array(b));
  return new Response(await m.gzipped, { status: res.status, headers });
}

/**
 * Said by a route (in its handler) whose answer is a text stream with every cell already masked for a masked
 * caller. The policy then lets the stream pass chunk by chunk, still masking each run of whole lines on the
 * way (no class term spans a line break, so that is the whole text's mask): nothing is buffered beyond a line.
 * @example routeMasksItself(c); return c.body(stream, 200, { 'content-type': 'text/csv' });
 */
export function routeMasksItself(c: Context<AuthEnv>): void {
  c.set('masksItself', true);
}

/** A text stream masked by whole lines: the part after the last line break waits for the next chunk. */
export function maskedLines(body: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  let rest = '';
  return body.pipeThrough(new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, out) {
      const text = rest + decoder.decode(chunk, { stream: true });
      const end = text.lastIndexOf('\n') + 1;
      rest = text.slice(end);
      if (end > 0) out.enqueue(encoder.encode(maskText(text.slice(0, end))));
    },
    flush(out) {
      const text = rest + decoder.decode();
      if (text) out.enqueue(encoder.encode(maskText(text)));
    },
  }));
}

/** An answer the route masked itself, streamed as text without a validator: masked line by line as it passes. */
function streamedSelfMasked(c: Context<AuthEnv>): Response | null {
  const res = c.res;
  const type = res.headers.get('content-type') ?? '';
  if (!c.get('masksItself') || !res.body || !/^text\//i.test(type) || res.headers.has('etag') || res.headers.has('content-encoding')) return null;
  const headers = new Headers(res.headers);
  headers.delete('content-length');
  return new Response(maskedLines(res.body), { status: res.status, headers });
}

/** Conditional request headers: a masked caller's are judged by the policy, never by the route. */
const CONDITIONS = ['if-none-match', 'if-modified-since', 'if-match', 'if-unmodified-since', 'if-range'];

/** The request as the route sees it for a masked caller: without its conditions. */
function withoutConditions(req: Request): Request {
  if (!CONDITIONS.some((h) => req.headers.has(h))) return req;
  const headers = new Headers(req.headers);
  for (const h of CONDITIONS) headers.delete(h);
  return new Request(req, { headers });
}

/**
 * @example
 *   const auth = withFaultMask(requireAuth({ tokens, accounts }), { faultTypeNone: 'None' });
 *   app.get('/api/alarms', auth, handler); // a masked caller's query is judged, and its answer masked
 */
export function withFaultMask(authenticate: MiddlewareHandler<AuthEnv>, names: UnmaskedNames): MiddlewareHandler<AuthEnv> {
  const memo = new MaskedByEtag();
  const policy = createMiddleware<AuthEnv>(async (c, next) => {
    const caller = c.get('caller');
    // The SCADA integrations' outputs (DNP3's devices, point map and device profile; IEC 104's point map and
    // interoperability list) read with an integration key are left whole: a point is named for the fault class it
    // reports, and the master configured from them needs that. Admins read them masked.
    if (!caller.maskFaultDetails || (caller.role === 'integration' && c.get('integrationOutput'))) return next();
    const problem = maskedParametersProblem(c.req.queries());
    if (problem) throw badParameter(problem.parameter, problem.message, { field: problem.field });
    const ifNoneMatch = c.req.header('if-none-match');
    c.req.raw = withoutConditions(c.req.raw);
    await next();
    const answer = streamedSelfMasked(c) ?? await maskedAnswer(c.res, names, ifNoneMatch, memo);
    // Hono's setter would copy the unmasked response's headers (ETag, encoding) onto the new one: clear it first.
    c.res = undefined;
    c.res = answer;
  });
  return createMiddleware<AuthEnv>(async (c, next) => { await authenticate(c, async () => { await policy(c, next); }); });
}
