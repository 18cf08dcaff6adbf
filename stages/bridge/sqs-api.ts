// The bridge's own SQS request path: the three calls its hot loop makes (ReceiveMessage, DeleteMessageBatch,
// GetQueueAttributes), each one signed POST of the SQS JSON protocol over a keep-alive connection. The AWS
// SDK's client spends most of a request's CPU in its generic middleware, endpoint rules and schema-driven
// (de)serialisation; at 10 messages a request that was a fifth of the bridge's busy time
// (docs/decisions.md#a-lighter-sqs-request-path). What it brought that matters stays: requests are signed by
// the SDK's own SigV4 signer with the SDK's default credential chain, and the connection settings are the
// ones the SDK client gets (sqs-client.ts resolveSqsConnection). Retries are the caller's (sqs-source.ts).
// The server is not trusted: every call has a connect timeout, a deadline and a bound on the answer's size, and
// every answer is shape-checked (sqs-answers.ts) before anyone reads it (docs/decisions.md#sqs-request-path-hardened).
import { createHash, createHmac } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { SignatureV4 } from '@smithy/signature-v4';
import { attributesAnswer, deleteAnswer, receiveAnswer, SqsAnswerError, type SqsDeleteResult, type SqsMessage } from './sqs-answers.js';
import { resolveSqsConnection, SQS_CONNECT_TIMEOUT_MS, type ResolvedSqsConnection, type SqsConnectionOptions } from './sqs-client.js';
import { FaultlineError } from '../../errors/base.js';
import { regionOfQueueUrl } from './sqs-endpoint.js';
import type { Log } from './source.js';

export interface SqsDeleteEntry { Id: string; ReceiptHandle: string }
export interface ReceiveInput { maxMessages: number; waitTimeSeconds: number; visibilityTimeoutSeconds?: number }

/** The queue as the bridge uses it. A call rejects (never hangs, never throws elsewhere) when `signal` aborts. */
export interface SqsQueueApi {
  receive(input: ReceiveInput, signal?: AbortSignal): Promise<SqsMessage[]>;
  deleteBatch(entries: readonly SqsDeleteEntry[], signal?: AbortSignal): Promise<SqsDeleteResult>;
  attributes(names: readonly string[], signal?: AbortSignal): Promise<Record<string, string>>;
  destroy(): void;
}

export interface SqsApiOptions extends SqsConnectionOptions {
  /** No TCP connection within this: the call fails. Default SQS_CONNECT_TIMEOUT_MS (the SDK client's too). */
  connectTimeoutMs?: number;
  /** A longer answer is refused unread past this bound. Default MAX_ANSWER_BYTES. */
  maxAnswerBytes?: number;
}

/**
 * The largest answer read: 10 messages of SQS's largest (1 MiB), twice over for JSON escaping, and 4 MiB for
 * ids, handles and attributes. A receive answer is the largest there is; a legitimate one never comes near.
 */
export const MAX_ANSWER_BYTES = 24 * 1024 * 1024;

/**
 * An error answer of SQS: `code` is the protocol's error type (QueueDoesNotExist, ...: SQS's own code table);
 * retriable when the server is away or busy (5xx, 429 Too Many Requests, 408 Request Timeout).
 */
export class SqsError extends FaultlineError {
  constructor(code: string, message: string, readonly status: number) {
    super(code, `${code}: ${message}`, { retriable: status >= 500 || status === 429 || status === 408 });
  }
}

/** node:crypto behind the signer's hash interface (a keyed one is an HMAC). */
class NodeSha256 {
  private readonly hash;
  constructor(secret?: string | ArrayBuffer | ArrayBufferView) {
    this.hash = secret === undefined ? createHash('sha256') : createHmac('sha256', toBuffer(secret));
  }
  update(data: string | ArrayBuffer | ArrayBufferView): void { this.hash.update(toBuffer(data)); }
  digest(): Promise<Uint8Array> { return Promise.resolve(this.hash.digest()); }
  reset(): void { /* the signer makes a new hash per digest */ }
}

function toBuffer(data: string | ArrayBuffer | ArrayBufferView): Buffer {
  if (typeof data === 'string') return Buffer.from(data, 'utf8');
  if (ArrayBuffer.isView(data)) return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  return Buffer.from(data);
}

/**
 * Where requests go and how they are signed. The endpoint is SQS_ENDPOINT when set, else the queue URL's origin,
 * as the SDK does (sqs-endpoint.ts): a VPC-endpoint, FIPS or China queue URL is served by its own host. The
 * region is AWS_REGION when set, else the one the AWS queue URL names; the signing service is always `sqs`.
 */
export function sqsApiTarget(options: SqsConnectionOptions, log?: Log): { endpoint: URL; region: string; service: 'sqs'; credentials: ResolvedSqsConnection['credentials'] } {
  const resolved = resolveSqsConnection(options, log);
  const region = resolved.region ?? regionOfQueueUrl(options.queueUrl);
  if (!region) throw new Error(`SQS: no region for ${options.queueUrl}; set AWS_REGION`);
  return { endpoint: new URL(resolved.endpoint ?? new URL(options.queueUrl).origin), region, service: 'sqs', credentials: resolved.credentials };
}

/**
 * @example
 *   const api = createSqsQueueApi({ queueUrl, requestTimeoutMs: 16_000 });
 *   const messages = await api.receive({ maxMessages: 10, waitTimeSeconds: 1 }, stopping.signal);
 */
export function createSqsQueueApi(options: SqsApiOptions, log?: Log): SqsQueueApi {
  const { queueUrl, requestTimeoutMs = 20_000, connectTimeoutMs = SQS_CONNECT_TIMEOUT_MS, maxAnswerBytes = MAX_ANSWER_BYTES } = options;
  const { endpoint, region, service, credentials } = sqsApiTarget(options, log);
  const secure = endpoint.protocol === 'https:';
  const agent = secure ? new https.Agent({ keepAlive: true }) : new http.Agent({ keepAlive: true });
  // Without credentials given (AWS), the SDK's default chain: environment, profiles, web identity, instance roles.
  const signer = new SignatureV4({ service, region, sha256: NodeSha256, credentials: credentials ?? defaultProvider() });
  const path = endpoint.pathname || '/';

  /**
   * One signed POST; resolves with the parsed JSON of a 2xx answer. Bounded three ways, so a hostile or broken
   * server can only make it fail: a connect timeout, a deadline for the whole call (connect, send, the answer
   * read to its end; a server trickling bytes does not extend it) and a size bound on the answer.
   * Error texts name the action and the bound, never a header (the signature is in them).
   */
  async function call(action: string, input: Record<string, unknown>, signal?: AbortSignal): Promise<unknown> {
    if (signal?.aborted) throw new Error(`SQS ${action}: aborted before it started`);
    const body = JSON.stringify(input);
    const signed = await signer.sign({
      method: 'POST', protocol: endpoint.protocol, hostname: endpoint.hostname, ...(endpoint.port ? { port: Number(endpoint.port) } : {}), path, query: {},
      headers: { host: endpoint.host, 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': `AmazonSQS.${action}`, 'content-length': String(Buffer.byteLength(body)) },
      body,
    });
    return new Promise<unknown>((resolve, reject) => {
      let settled = false;
      let connecting: NodeJS.Timeout | undefined;
      const onAbort = () => settle(new Error(`SQS ${action}: aborted`));
      const deadline = setTimeout(() => settle(new Error(`SQS ${action}: no complete answer within ${requestTimeoutMs} ms`)), requestTimeoutMs);
      const tooLarge = (bytes: number) => settle(new SqsAnswerError(action, `${bytes} bytes or more, over the ${maxAnswerBytes} byte bound`));
      /** The one way out: an error ends the request (its socket is not reused); an answer leaves it to the pool. */
      function settle(err: Error | null, value?: unknown): void {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        clearTimeout(connecting);
        signal?.removeEventListener('abort', onAbort);
        if (err) { req.destroy(); reject(err); } else resolve(value);
      }
      const req = (secure ? https : http).request({
        agent, method: 'POST', hostname: endpoint.hostname, port: endpoint.port || (secure ? 443 : 80), path, headers: signed.headers,
      }, (res) => {
        const declared = Number(res.headers['content-length']);
        if (declared > maxAnswerBytes) { tooLarge(declared); return; }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > maxAnswerBytes) tooLarge(size); else chunks.push(c);
        });
        res.on('error', (e) => settle(e));
        res.on('close', () => { if (!res.complete) settle(new Error(`SQS ${action}: the connection closed before the answer ended`)); });
        res.on('end', () => {
          if (settled) return;
          try { settle(null, answerOf(action, res.statusCode ?? 0, res.statusMessage, res.headers['x-amzn-errortype'], Buffer.concat(chunks).toString('utf8'))); } catch (err) { settle(err as Error); }
        });
      });
      req.on('socket', (socket) => {
        if (!socket.connecting) return; // a kept-alive connection
        connecting = setTimeout(() => settle(new Error(`SQS ${action}: no connection to ${endpoint.host} within ${connectTimeoutMs} ms`)), connectTimeoutMs);
        socket.once('connect', () => clearTimeout(connecting));
      });
      req.on('error', (e) => settle(e));
      signal?.addEventListener('abort', onAbort, { once: true });
      req.end(body);
    });
  }

  return {
    async receive({ maxMessages, waitTimeSeconds, visibilityTimeoutSeconds }, signal) {
      const out = await call('ReceiveMessage', {
        QueueUrl: queueUrl, MaxNumberOfMessages: maxMessages, WaitTimeSeconds: waitTimeSeconds,
        ...(visibilityTimeoutSeconds === undefined ? {} : { VisibilityTimeout: visibilityTimeoutSeconds }),
      }, signal);
      return receiveAnswer(out, maxMessages);
    },
    async deleteBatch(entries, signal) {
      return deleteAnswer(await call('DeleteMessageBatch', { QueueUrl: queueUrl, Entries: entries }, signal));
    },
    async attributes(names, signal) {
      return attributesAnswer(await call('GetQueueAttributes', { QueueUrl: queueUrl, AttributeNames: names }, signal));
    },
    destroy() { agent.destroy(); },
  };
}

/** A whole answer: a 2xx's parsed JSON (empty: `{}`); throws an SqsError for an error answer, an SqsAnswerError for a 2xx that is not JSON. */
function answerOf(action: string, status: number, statusMessage: string | undefined, errorType: string | string[] | undefined, text: string): unknown {
  let parsed: unknown;
  let json = true;
  try { parsed = text ? JSON.parse(text) : {}; } catch { json = false; }
  if (status >= 200 && status < 300) {
    if (!json) throw new SqsAnswerError(action, `the answer is not JSON (${text.length} characters)`);
    return parsed;
  }
  // The JSON protocol names the error in __type ("com.amazonaws.sqs#QueueDoesNotExist") and the text in message.
  const fields = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as Record<string, unknown>;
  const type = String(fields.__type ?? errorType ?? `HTTP ${status}`).slice(0, 200);
  const message = String(fields.message ?? fields.Message ?? (text || statusMessage)).slice(0, 200);
  throw new SqsError(type.slice(type.lastIndexOf('#') + 1).split(':')[0]!, message, status);
}
