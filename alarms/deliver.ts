// One attempt at one alarm message, on the recipient's channel. A webhook's secret exists in plain text only
// inside this function, for this request; the SMS token and SMTP password only inside their transports.
import type { AlarmSettings } from '../config/settings.js';
import { messageBody, messageSubject, messageText } from '../domain/alarm-message.js';
import { HttpSendError } from '../outbox/http-post.js';
import type { SendFailure } from '../outbox/worker.js';
import { decryptRecipientSecret } from '../secrets/recipient-secret.js';
import { SecretsError } from '../secrets/errors.js';
import type { Keyring } from '../secrets/keyring.js';
import type { Mailer } from './channels/email.js';
import { isUntrustedChain, UNTRUSTED_HINT } from './channels/http-trust.js';
import { sendSms, type SmsTemplate } from './channels/sms.js';
import { sendWebhook } from './channels/webhook.js';
import type { AlarmOutboxRow } from './outbox.js';
import type { StoredRecipient } from './store.js';
import { AlarmSendError } from './send-errors.js';

export { AlarmSendError };

/** Stable per message: every retry carries the same key (webhook Idempotency-Key, e-mail Message-ID). */
export const idempotencyKeyOf = (row: Pick<AlarmOutboxRow, 'id' | 'kind' | 'alarm_id'>) => `faultline-alarm-${row.alarm_id ?? 'digest'}-${row.kind}-${row.id}`;

export interface Channels {
  settings: AlarmSettings;
  keyring: Keyring | null;
  mailer: Mailer | null;
  sms: SmsTemplate;
  /** The CAs webhooks and the SMS gateway are checked against (ALARM_HTTP_CA_FILE added); undefined: Node's own. */
  httpCa: Buffer | undefined;
  nowMs: () => number;
}

function checkStatus(status: number, what: string): void {
  if (status < 200 || status >= 300) throw new AlarmSendError('HTTP_STATUS', `${what} answered HTTP ${status}`, { retriable: status >= 500 || status === 429 || status === 408 });
}

export async function deliverAlarm(row: AlarmOutboxRow, r: StoredRecipient, ch: Channels): Promise<void> {
  const p = row.payload;
  const key = idempotencyKeyOf(row);
  if (r.channel === 'webhook') {
    let secret: Buffer | null = null;
    if (r.secret) {
      if (!ch.keyring) throw new AlarmSendError('SECRET_UNREADABLE', 'no secret key is configured (FAULTLINE_SECRET_KEYS or FAULTLINE_SECRET_KEY_FILE)');
      try {
        secret = decryptRecipientSecret(ch.keyring, r.id, r.secret.ciphertext, r.secret.keyId);
      } catch (err) {
        if (err instanceof SecretsError) throw new AlarmSendError('SECRET_UNREADABLE', `${err.code}: ${err.message}`);
        throw err;
      }
    }
    try {
      const res = await sendWebhook({ url: r.address, secret, body: { ...p, idempotencyKey: key }, idempotencyKey: key, allow: ch.settings.webhookAllow, nowMs: ch.nowMs(), ca: ch.httpCa });
      checkStatus(res.status, 'the webhook');
    } finally {
      secret?.fill(0);
    }
    return;
  }
  if (r.channel === 'sms') {
    if (!ch.settings.smsUrl) throw new AlarmSendError('CHANNEL_UNCONFIGURED', 'no SMS gateway is configured (ALARM_SMS_URL)');
    const res = await sendSms(ch.settings.smsUrl, ch.sms, { to: r.address, from: ch.settings.smsFrom, text: messageText(p), token: ch.settings.smsToken }, ch.httpCa);
    checkStatus(res.status, 'the SMS gateway');
    return;
  }
  if (!ch.mailer) throw new AlarmSendError('CHANNEL_UNCONFIGURED', 'no SMTP server is configured (ALARM_SMTP_URL)');
  await ch.mailer.send(r.address, messageSubject(p), messageBody(p), `<${key}@faultline>`);
}

/** Any failure as code, message (no secret, no payload) and retriable. */
export function alarmFailure(err: unknown): SendFailure {
  if (err instanceof AlarmSendError) return { code: err.code, message: err.message, retriable: err.retriable };
  if (err instanceof HttpSendError) {
    const message = err.code === 'TLS_FAILED' && isUntrustedChain(err.message) ? `${err.message}: ${UNTRUSTED_HINT}` : err.message;
    return { code: err.code, message, retriable: err.retriable };
  }
  // Anything else nobody foresaw: retried until the message's maximum age.
  return { code: 'SEND_FAILED', message: 'the send failed', retriable: true };
}
