// Webhooks: a JSON body, signed with HMAC-SHA256 over "<timestamp>.<body>" with the recipient's secret, so a
// receiver can check who sent it and refuse a replay (an old timestamp, or an Idempotency-Key it has seen).
// The key is the same on every retry of one message.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { postHttp, type PostResult } from '../../outbox/http-post.js';
import type { WebhookAllowance } from '../../config/settings.js';
import { guardedLookup } from './target-guard.js';

export const SIGNATURE_HEADER = 'x-faultline-signature';
export const TIMESTAMP_HEADER = 'x-faultline-timestamp';
export const IDEMPOTENCY_HEADER = 'idempotency-key';

export function webhookSignature(secret: Buffer | string, timestamp: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

/** For receivers (and the tests): true when the signature matches and the timestamp is within `toleranceS`. */
export function verifyWebhook(secret: string, headers: Record<string, string | undefined>, body: string, nowMs = Date.now(), toleranceS = 300): boolean {
  const ts = headers[TIMESTAMP_HEADER];
  const sig = headers[SIGNATURE_HEADER];
  if (!ts || !sig || !/^\d+$/.test(ts) || Math.abs(nowMs / 1000 - Number(ts)) > toleranceS) return false;
  const want = Buffer.from(webhookSignature(secret, ts, body));
  const got = Buffer.from(sig);
  return want.length === got.length && timingSafeEqual(want, got);
}

export interface WebhookSend {
  url: string;
  secret: Buffer | null;
  body: unknown;
  idempotencyKey: string;
  allow: readonly WebhookAllowance[];
  nowMs: number;
  /** The CAs to trust (alarms/channels/http-trust.ts); undefined: Node's own. */
  ca?: Buffer;
  timeoutMs?: number;
}

export function sendWebhook({ url, secret, body, idempotencyKey, allow, nowMs, ca, timeoutMs = 10_000 }: WebhookSend): Promise<PostResult> {
  const text = JSON.stringify(body);
  const ts = String(Math.floor(nowMs / 1000));
  const headers: Record<string, string> = { 'content-type': 'application/json', [TIMESTAMP_HEADER]: ts, [IDEMPOTENCY_HEADER]: idempotencyKey, 'user-agent': 'faultline-alarms' };
  if (secret) headers[SIGNATURE_HEADER] = webhookSignature(secret, ts, text);
  return postHttp(url, text, headers, { timeoutMs, connectTimeoutMs: Math.min(timeoutMs, 5_000), lookup: guardedLookup(allow), ...(ca ? { tls: { ca } } : {}) });
}
