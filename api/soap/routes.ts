// The SOAP endpoint (spec 4.1, docs/decisions.md#names-and-places): GET /soap/wsdl and GET /soap?wsdl serve
// the WSDL (?version=3.0 for the 3.0 flavour); POST /soap and POST /soap/wsdl take PingURL, GetMethods and
// GetAllSCADAPoints (api/soap/operations.ts). Every call, PingURL too, needs a valid MultiSpeakMsgHeader login
// (docs/decisions.md#multispeak-server-calls).
// Credentials are a portal login (UserID = email, Pwd = password), checked like POST /api/auth/login:
// the same scrypt work for a wrong email as for a wrong password, and the same failed-login limit: one
// LoginCheck (api/auth/login-check.ts) shared with REST, so a guesser gains nothing by switching.
import { Hono } from 'hono';
import type { Context } from 'hono';
import type pg from 'pg';
import { log } from '../../config/log.js';
import { isVersion, type Version } from '../../multispeak/versions.js';
import type { AccountStore } from '../auth/accounts.js';
import { loginCheck, type LoginCheck } from '../auth/login-check.js';
import type { ReachCaller } from '../device-records/reach.js';
import { faultResponse, SoapFault } from './fault.js';
import { getMethodsAnswer, pingUrlAnswer } from './methods.js';
import { isServedOperation } from './operations.js';
import { pointsStream } from './points.js';
import { parseSoapRequest, readBody } from './request.js';
import { wsdlDocument } from './wsdl.js';

export interface SoapRouteOptions {
  pool: pg.Pool;
  accounts: AccountStore;
  clientAddress: (c: Context) => string;
  /** The app's login check, shared with POST /api/auth/login; default one of its own. */
  check?: LoginCheck;
  now?: () => number;
}

const XML = { 'content-type': 'text/xml; charset=utf-8' };
const MAX_FIELD = 1024;

function serveWsdl(c: Context): Response {
  const requested = c.req.query('version') ?? '4.1';
  const version: Version = isVersion(requested) ? requested : '4.1';
  const address = `${new URL(c.req.url).origin}/soap`;
  return new Response(wsdlDocument(version, address), { headers: XML });
}

export function soapRoutes({ pool, accounts, clientAddress, check = loginCheck({ accounts }), now = Date.now }: SoapRouteOptions): Hono {
  const app = new Hono();

  /** The login of the header (its organisation, role and groups decide what GetAllSCADAPoints lists). */
  async function organisationOf(c: Context, header: Record<string, string>): Promise<ReachCaller> {
    const email = header.UserID?.trim();
    const password = header.Pwd;
    if (!email || !password || email.length > MAX_FIELD || password.length > MAX_FIELD) throw new SoapFault('MISSING_CREDENTIALS');
    const outcome = await check(email, password, clientAddress(c));
    if (outcome.ok) return { userId: outcome.account.userId, org: outcome.account.org, role: outcome.account.role };
    if (outcome.reason === 'wrong') throw new SoapFault('BAD_CREDENTIALS');
    throw new SoapFault(outcome.reason === 'busy' ? 'BUSY' : 'RATE_LIMITED', undefined, outcome.retryAfterS);
  }

  async function handle(c: Context): Promise<Response> {
    try {
      const request = parseSoapRequest(await readBody(c.req.raw));
      if (!isServedOperation(request.operation)) throw new SoapFault('UNKNOWN_OPERATION', `Got ${request.operation.slice(0, 100)}.`);
      const caller = await organisationOf(c, request.header);
      if (request.operation === 'PingURL') return new Response(pingUrlAnswer(request.version, new Date(now())), { headers: XML });
      if (request.operation === 'GetMethods') return new Response(getMethodsAnswer(request.version, new Date(now())), { headers: XML });
      const stream = await pointsStream(pool, request.version, caller, (request.params.lastReceived ?? '').trim());
      return new Response(stream, { headers: XML });
    } catch (err) {
      if (err instanceof SoapFault) return faultResponse(err);
      log.error({ err: { name: (err as Error).name, message: (err as Error).message }, path: c.req.path }, 'SOAP request failed');
      return faultResponse(new SoapFault('INTERNAL'));
    }
  }

  app.get('/soap/wsdl', serveWsdl);
  app.get('/soap', (c) => (c.req.query('wsdl') !== undefined ? serveWsdl(c)
    : c.text('MultiSpeak SCADA_Server: POST SOAP 1.1 requests here; the WSDL is at /soap/wsdl (add ?version=3.0 for MultiSpeak 3.0).')));
  app.post('/soap', handle);
  app.post('/soap/wsdl', handle);
  return app;
}
