// The bridge's own SQS request path: the three calls its hot loop makes (ReceiveMessage, DeleteMessageBatch,
// GetQueueAttributes), each one signed POST of the SQS JSON protocol over a keep-alive connection. The AWS
// SDK's client spends most of a request's CPU in its generic middleware, endpoint rules and schema-driven
// (de)serialisation; at 10 messages a request that was a fifth of the bridge's busy time
// (docs/decisions.md#a-lighter-sqs-request-path). What it brought that matters stays: requests are signed by
// the SDK's own SigV4 signer with the SDK's default credential chain, and the connection settings are the
// ones the SDK client gets (sqs-client.ts resolveSqsConnection). Retries are the caller's (sqs-source.ts).
import { createHash, createHmac } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { SignatureV4 } from '@smithy/signature-v4';
import { resolveSqsConnection, type ResolvedSqsConnection, type SqsConnectionOptions } from './sqs-client.js';
import type { Log } from './source.js';

/** A received message: what the bridge reads of it. */
export interface SqsMessage { MessageId?: string; ReceiptHandle?: string; Body?: string }
export interface SqsDeleteEntry { Id: string; ReceiptHandle: string }
export interface SqsDeleteFailure { Id: string; SenderFault: boolean; Code: string; Message?: string }
export interface SqsDeleteResult { Successful: { Id: string }[]; Failed: SqsDeleteFailure[] }

export interface ReceiveInput { maxMessages: number; waitTimeSeconds: number; visibilityTimeoutSeconds?: number }

/** The queue as the bridge uses it. */
export interface SqsQueueApi {
  receive(input: ReceiveInput): Promise<SqsMessage[]>;
  deleteBatch(entries: readonly SqsDeleteEntry[]): Promise<SqsDeleteResult>;
  attributes(names: readonly string[], signal?: AbortSignal): Promise<Record<string, string>>;
  destroy(): void;
}

/** An error answer of SQS: `code` is the protocol's error type (QueueDoesNotExist, ...). */
export class SqsError extends Error {
  constructor(readonly code: string, message: string, readonly status: number) {
    super(`${code}: ${message}`);
    this.name = 'SqsError';
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

/** An AWS queue URL names its region (sqs.<region>.amazonaws.com, or the older <region>.queue.amazonaws.com). */
export function regionOfQueueUrl(queueUrl: string): string | undefined {
  const host = new URL(queueUrl).hostname;
  return /^sqs\.([a-z0-9-]+)\.amazonaws\.com(\.cn)?$/.exec(host)?.[1] ?? /^([a-z0-9-]+)\.queue\.amazonaws\.com(\.cn)?$/.exec(host)?.[1];
}

/** Where requests go and how they are signed: the SDK client's settings, and for AWS the region the queue URL names. */
export function sqsApiTarget(options: SqsConnectionOptions, log?: Log): { endpoint: URL; region: string; credentials: ResolvedSqsConnection['credentials'] } {
  const resolved = resolveSqsConnection(options, log);
  // The setting (AWS_REGION, read in config/) wins; an AWS queue URL always names one.
  const region = resolved.region ?? regionOfQueueUrl(options.queueUrl);
  if (!region) throw new Error(`SQS: no region for ${options.queueUrl}; set AWS_REGION`);
  return { endpoint: new URL(resolved.endpoint ?? `https://sqs.${region}.amazonaws.com`), region, credentials: resolved.credentials };
}

export function createSqsQueueApi(options: SqsConnectionOptions, log?: Log): SqsQueueApi {
  const { queueUrl, requestTimeoutMs = 20_000 } = options;
  const { endpoint, region, credentials } = sqsApiTarget(options, log);
  const secure = endpoint.protocol === 'https:';
  const agent = secure ? new https.Agent({ keepAlive: true }) : new http.Agent({ keepAlive: true });
  // Without credentials given (AWS), the SDK's default chain: environment, profiles, web identity, instance roles.
  const signer = new SignatureV4({ service: 'sqs', region, sha256: NodeSha256, credentials: credentials ?? defaultProvider() });
  const path = endpoint.pathname || '/';

  async function call<T>(action: string, input: Record<string, unknown>, timeoutMs = requestTimeoutMs, signal?: AbortSignal): Promise<T> {
    const body = JSON.stringify(input);
    const signed = await signer.sign({
      method: 'POST', protocol: endpoint.protocol, hostname: endpoint.hostname, ...(endpoint.port ? { port: Number(endpoint.port) } : {}), path, query: {},
      headers: { host: endpoint.host, 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': `AmazonSQS.${action}`, 'content-length': String(Buffer.byteLength(body)) },
      body,
    });
    return new Promise<T>((resolve, reject) => {
      const req = (secure ? https : http).request({
        agent, method: 'POST', hostname: endpoint.hostname, port: endpoint.port || (secure ? 443 : 80), path, headers: signed.headers, timeout: timeoutMs, ...(signal ? { signal } : {}),
      }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: Record<string, unknown> = {};
          try { parsed = text ? (JSON.parse(text) as Record<string, unknown>) : {}; } catch { /* an answer that is not JSON: status alone */ }
          const status = res.statusCode ?? 0;
          if (status >= 200 && status < 300) { resolve(parsed as T); return; }
          // The JSON protocol names the error in __type ("com.amazonaws.sqs#QueueDoesNotExist") and the text in message.
          const type = String(parsed.__type ?? res.headers['x-amzn-errortype'] ?? `HTTP ${status}`);
          reject(new SqsError(type.slice(type.lastIndexOf('#') + 1).split(':')[0]!, String(parsed.message ?? parsed.Message ?? (text.slice(0, 200) || res.statusMessage)), status));
        });
      });
      req.on('timeout', () => req.destroy(new Error(`SQS ${action}: no answer within ${timeoutMs} ms`)));
      req.on('error', reject);
      req.end(body);
    });
  }

  return {
    async receive({ maxMessages, waitTimeSeconds, visibilityTimeoutSeconds }) {
      const out = await call<{ Messages?: SqsMessage[] }>('ReceiveMessage', {
        QueueUrl: queueUrl, MaxNumberOfMessages: maxMessages, WaitTimeSeconds: waitTimeSeconds,
        ...(visibilityTimeoutSeconds === undefined ? {} : { VisibilityTimeout: visibilityTimeoutSeconds }),
      });
      return out.Messages ?? [];
    },
    async deleteBatch(entries) {
      const out = await call<Partial<SqsDeleteResult>>('DeleteMessageBatch', { QueueUrl: queueUrl, Entries: entries });
      return { Successful: out.Successful ?? [], Failed: out.Failed ?? [] };
    },
    async attributes(names, signal) {
      const out = await call<{ Attributes?: Record<string, string> }>('GetQueueAttributes', { QueueUrl: queueUrl, AttributeNames: names }, requestTimeoutMs, signal);
      return out.Attributes ?? {};
    },
    destroy() { agent.destroy(); },
  };
}
