// One POST over node:http(s) for every outbox sender (MultiSpeak SOAP, alarm webhooks, the SMS gateway): a
// connect timeout and an overall timeout, optional CA bundle / client certificate, an optional address check
// at connect time (the webhook guard), and a capped answer. Every failure is an HttpSendError whose message
// names the kind of failure, never the request or its headers.
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { CodedError, type CodeMeaning } from '../errors/code-table.js';

/** An answer is a status and a few lines; more than this is not worth reading. */
const MAX_ANSWER = 1024 * 1024;

export interface TlsFiles { ca?: Buffer; cert?: Buffer; key?: Buffer }

export interface HttpPostOptions {
  timeoutMs: number;
  connectTimeoutMs: number;
  tls?: TlsFiles;
  /** Resolves (and may refuse) the host name at connect time; an address literal is passed through it too,
   * before connecting (Node connects to a literal without any lookup). */
  lookup?: LookupFunction;
}

export interface PostResult { status: number; body: string }

/** Code -> what it means and whether another attempt can help. */
export const HTTP_FAILURES = {
  TIMEOUT: { retriable: true, meaning: 'no connection, or no complete answer, within its timeout' },
  CONNECT_FAILED: { retriable: true, meaning: 'the connection failed or the answer was cut' },
  // Retried like any TLS failure: the operator may add the CA and restart, and nothing owed is dropped meanwhile.
  TLS_FAILED: { retriable: true, meaning: 'the TLS handshake failed' },
  TARGET_REFUSED: { retriable: false, meaning: 'the address check refused the target (a webhook to a private address)' },
} as const satisfies Record<string, CodeMeaning>;

export type HttpFailureCode = keyof typeof HTTP_FAILURES;

export class HttpSendError extends CodedError(HTTP_FAILURES) {}

const TLS_CODES = /CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_VERIFY|HOSTNAME|ERR_TLS/;

/** Runs an address literal through `lookup` (a guard refuses it with TARGET_REFUSED). */
function checkLiteral(lookup: LookupFunction, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    lookup(host, { all: true }, (err) => {
      if (!err) return resolve();
      reject(new HttpSendError(err.code === 'TARGET_REFUSED' ? 'TARGET_REFUSED' : 'CONNECT_FAILED', err.message.slice(0, 200)));
    });
  });
}

export async function postHttp(url: string, payload: string | Buffer, headers: Record<string, string>, options: HttpPostOptions): Promise<PostResult> {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  if (options.lookup && isIP(host)) await checkLiteral(options.lookup, host);
  return send(url, payload, headers, options);
}

function send(url: string, payload: string | Buffer, headers: Record<string, string>, { timeoutMs, connectTimeoutMs, tls = {}, lookup }: HttpPostOptions): Promise<PostResult> {
  const target = new URL(url);
  const secure = target.protocol === 'https:';
  const body = typeof payload === 'string' ? Buffer.from(payload, 'utf8') : payload;
  const allHeaders = { ...headers, 'content-length': String(body.length) };
  return new Promise<PostResult>((resolve, reject) => {
    let settled = false;
    const fail = (err: HttpSendError) => {
      if (settled) return;
      settled = true;
      clearTimeout(overall);
      clearTimeout(connecting);
      req.destroy();
      reject(err);
    };
    const onResponse = (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size <= MAX_ANSWER) chunks.push(c);
      });
      res.on('error', (e: NodeJS.ErrnoException) => fail(new HttpSendError('CONNECT_FAILED', `answer interrupted (${e.code ?? e.message})`)));
      res.on('end', () => {
        if (settled) return;
        settled = true;
        clearTimeout(overall);
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') });
      });
    };
    const options = { method: 'POST', headers: allHeaders, agent: false as const, ...(lookup ? { lookup } : {}) };
    const req = secure
      ? httpsRequest(target, { ...options, ca: tls.ca, cert: tls.cert, key: tls.key }, onResponse)
      : httpRequest(target, options, onResponse);
    const overall = setTimeout(() => fail(new HttpSendError('TIMEOUT', `no complete answer within ${timeoutMs} ms`)), timeoutMs);
    const connecting = setTimeout(() => fail(new HttpSendError('TIMEOUT', `no connection within ${connectTimeoutMs} ms`)), connectTimeoutMs);
    req.on('socket', (socket) => socket.once(secure ? 'secureConnect' : 'connect', () => clearTimeout(connecting)));
    req.on('error', (e: NodeJS.ErrnoException) => {
      if (e instanceof HttpSendError) return fail(e);
      const code = e.code ?? '';
      if (code === 'TARGET_REFUSED') return fail(new HttpSendError('TARGET_REFUSED', e.message.slice(0, 200)));
      fail(new HttpSendError(TLS_CODES.test(code) ? 'TLS_FAILED' : 'CONNECT_FAILED', `${code || 'error'}: ${e.message.slice(0, 200)}`));
    });
    req.end(body);
  });
}
