// One SOAP 1.1 POST over node:http(s): a connect timeout and an overall timeout, the integration's own CA
// bundle / client certificate for a DMZ reverse proxy (channel D), and a capped answer. Every failure is a
// DeliveryError whose message names the kind of failure, never the request.
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { DeliveryError } from './errors.js';
import type { TlsFiles } from './target.js';

/** An OMS answer is an empty response or a few errorObjects; more than this is not worth reading. */
const MAX_ANSWER = 1024 * 1024;

export interface PostOptions {
  timeoutMs: number;
  connectTimeoutMs: number;
  tls: TlsFiles;
}

export interface PostResult { status: number; body: string }

const TLS_CODES = /CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_VERIFY|HOSTNAME|ERR_TLS/;

export function postSoap(url: string, xml: string, soapAction: string, { timeoutMs, connectTimeoutMs, tls }: PostOptions): Promise<PostResult> {
  const target = new URL(url);
  const secure = target.protocol === 'https:';
  const body = Buffer.from(xml, 'utf8');
  const headers = { 'content-type': 'text/xml; charset=utf-8', soapaction: soapAction, 'content-length': String(body.length) };
  return new Promise<PostResult>((resolve, reject) => {
    let settled = false;
    const fail = (err: DeliveryError) => {
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
      res.on('error', (e: NodeJS.ErrnoException) => fail(new DeliveryError('CONNECT_FAILED', `answer interrupted (${e.code ?? e.message})`)));
      res.on('end', () => {
        if (settled) return;
        settled = true;
        clearTimeout(overall);
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') });
      });
    };
    const options = { method: 'POST', headers, agent: false as const };
    const req = secure
      ? httpsRequest(target, { ...options, ca: tls.ca, cert: tls.cert, key: tls.key }, onResponse)
      : httpRequest(target, options, onResponse);
    const overall = setTimeout(() => fail(new DeliveryError('TIMEOUT', `no complete answer within ${timeoutMs} ms`)), timeoutMs);
    const connecting = setTimeout(() => fail(new DeliveryError('TIMEOUT', `no connection within ${connectTimeoutMs} ms`)), connectTimeoutMs);
    req.on('socket', (socket) => socket.once(secure ? 'secureConnect' : 'connect', () => clearTimeout(connecting)));
    req.on('error', (e: NodeJS.ErrnoException) => {
      const code = e.code ?? '';
      fail(new DeliveryError(TLS_CODES.test(code) ? 'TLS_FAILED' : 'CONNECT_FAILED', `${code || 'error'}: ${e.message.slice(0, 200)}`));
    });
    req.end(body);
  });
}
