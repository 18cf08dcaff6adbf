// The one place the fault mask is applied to readers (docs/decisions.md#masking; rules: domain/fault-masking.ts).
// It is part of the `auth` middleware app.ts hands to every router, so every authenticated route passes
// through it by construction, knowing the caller: for an organisation with MaskFaultDetails, a query that
// would reveal the fault class is refused before the endpoint reads it, and every answer (JSON, or any text
// such as CSV; gzip-encoded or not) is masked after it. Only the integration outputs named below are left
// as they are: they feed the utility's own systems (DNP3, MultiSpeak), like the SOAP server, which has no
// `auth` of this kind.
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { gunzip as gunzipCallback, gzip as gzipCallback, constants } from 'node:zlib';
import type { MiddlewareHandler } from 'hono';
import { createMiddleware } from 'hono/factory';
import { maskedParametersProblem, maskFaultClass, maskText, type UnmaskedNames } from '../domain/fault-masking.js';
import type { AuthEnv } from './auth/caller.js';
import { matchesEtag } from './device-records/fleet-answer.js';
import { DEVICE_PROFILE_PATH } from './dnp3/device-profile.js';
import { ORGANIZATION_DEVICES_PATH } from './dnp3/organization-devices.js';
import { POINT_MAP_PATH } from './dnp3/point-map.js';
import { badParameter } from './errors.js';

const gzip = promisify(gzipCallback);
const gunzip = promisify(gunzipCallback);

/** The DNP3 integration's outputs (its devices with codes and texts, its point map and device profile): not masked. */
export const UNMASKED_INTEGRATION_PATHS: readonly string[] = [ORGANIZATION_DEVICES_PATH, POINT_MAP_PATH, DEVICE_PROFILE_PATH];

/** The answer as the masked caller reads it; the same Response when the mask changes nothing. */
async function maskedAnswer(res: Response, names: UnmaskedNames, ifNoneMatch: string | undefined): Promise<Response> {
  const type = res.headers.get('content-type') ?? '';
  const json = /^application\/(?:[a-z0-9.+-]+\+)?json/i.test(type);
  if (!res.body || res.status === 204 || res.status === 304 || !(json || /^text\//i.test(type))) return res;
  const gzipped = /gzip/i.test(res.headers.get('content-encoding') ?? '');
  const bytes = Buffer.from(await res.arrayBuffer());
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
  const headers = new Headers(res.headers);
  headers.delete('content-length');
  // Unchanged (an answer with no fault in it): the original bytes and their ETag stand.
  if (after === before) return new Response(bytes, { status: res.status, headers });
  // Changed: an ETag of the unmasked bytes would change with the hidden class, so it is made of the masked ones.
  if (headers.has('etag')) {
    const etag = `"${createHash('sha1').update(after).digest('base64url')}"`;
    headers.set('etag', etag);
    if (res.status === 200 && matchesEtag(ifNoneMatch, etag)) {
      headers.delete('content-encoding');
      headers.delete('content-type');
      return new Response(null, { status: 304, headers });
    }
  }
  const body = gzipped ? new Uint8Array(await gzip(after, { level: constants.Z_BEST_SPEED })) : after;
  return new Response(body, { status: res.status, headers });
}

/**
 * @example
 *   const auth = withFaultMask(requireAuth({ tokens, accounts }), { faultTypeNone: 'None' });
 *   app.get('/api/alarms', auth, handler); // a masked caller's query is judged, and its answer masked
 */
export function withFaultMask(authenticate: MiddlewareHandler<AuthEnv>, names: UnmaskedNames): MiddlewareHandler<AuthEnv> {
  const policy = createMiddleware<AuthEnv>(async (c, next) => {
    if (!c.get('caller').maskFaultDetails || UNMASKED_INTEGRATION_PATHS.includes(c.req.path)) return next();
    const problem = maskedParametersProblem(c.req.queries());
    if (problem) throw badParameter(problem.parameter, problem.message, { field: problem.field });
    await next();
    const answer = await maskedAnswer(c.res, names, c.req.header('if-none-match'));
    // Hono's setter would copy the unmasked response's headers (ETag, encoding) onto the new one: clear it first.
    c.res = undefined;
    c.res = answer;
  });
  return createMiddleware<AuthEnv>(async (c, next) => { await authenticate(c, async () => { await policy(c, next); }); });
}
