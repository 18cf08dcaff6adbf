// SMS through an HTTP gateway (docs/decisions.md#alarm-routing): provider-neutral. A request template (JSON
// file, ALARM_SMS_TEMPLATE_FILE) says the method's content type, headers and fields; "{{to}}", "{{from}}",
// "{{text}}" and "{{token}}" are filled in. Without a file: the common form post
// `to=<number>&from=<sender>&text=<message>` with `Authorization: Bearer <token>` when a token is set.
import { readFileSync } from 'node:fs';
import { postHttp, type PostResult } from '../../outbox/http-post.js';

export interface SmsTemplate {
  contentType: 'application/x-www-form-urlencoded' | 'application/json';
  headers: Record<string, string>;
  fields: Record<string, string>;
}

export const DEFAULT_SMS_TEMPLATE: SmsTemplate = {
  contentType: 'application/x-www-form-urlencoded',
  headers: { authorization: 'Bearer {{token}}' },
  fields: { to: '{{to}}', from: '{{from}}', text: '{{text}}' },
};

const isStringMap = (v: unknown): v is Record<string, string> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && Object.values(v).every((x) => typeof x === 'string');

export function parseSmsTemplate(value: unknown, where: string): SmsTemplate {
  const t = value as Partial<SmsTemplate> | null;
  if (!t || typeof t !== 'object') throw new Error(`${where}: the SMS template must be a JSON object`);
  if (t.contentType !== 'application/x-www-form-urlencoded' && t.contentType !== 'application/json') throw new Error(`${where}: contentType must be application/x-www-form-urlencoded or application/json`);
  if (t.headers !== undefined && !isStringMap(t.headers)) throw new Error(`${where}: headers must map names to strings`);
  if (!isStringMap(t.fields)) throw new Error(`${where}: fields must map names to strings`);
  return { contentType: t.contentType, headers: t.headers ?? {}, fields: t.fields };
}

export function loadSmsTemplate(file: string | null): SmsTemplate {
  if (!file) return DEFAULT_SMS_TEMPLATE;
  return parseSmsTemplate(JSON.parse(readFileSync(file, 'utf8')), file);
}

export interface SmsValues { to: string; from: string; text: string; token: string | null }

const fill = (s: string, v: SmsValues) => s.replace(/\{\{(to|from|text|token)\}\}/g, (_, k: keyof SmsValues) => v[k] ?? '');

/** The request the template makes; a header that would carry an empty token is left out. */
export function smsRequest(t: SmsTemplate, v: SmsValues): { headers: Record<string, string>; body: string } {
  const headers: Record<string, string> = { 'content-type': t.contentType };
  for (const [name, value] of Object.entries(t.headers)) {
    if (value.includes('{{token}}') && !v.token) continue;
    headers[name.toLowerCase()] = fill(value, v);
  }
  const fields = Object.fromEntries(Object.entries(t.fields).map(([k, s]) => [k, fill(s, v)]));
  const body = t.contentType === 'application/json' ? JSON.stringify(fields) : new URLSearchParams(fields).toString();
  return { headers, body };
}

/** `ca`: the CAs to trust (alarms/channels/http-trust.ts); undefined: Node's own. */
export function sendSms(url: string, t: SmsTemplate, v: SmsValues, ca?: Buffer, timeoutMs = 10_000): Promise<PostResult> {
  const { headers, body } = smsRequest(t, v);
  return postHttp(url, body, headers, { timeoutMs, connectTimeoutMs: Math.min(timeoutMs, 5_000), ...(ca ? { tls: { ca } } : {}) });
}
