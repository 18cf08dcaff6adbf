// Why one alarm message was not sent: a code of this table, and whether another attempt can help (the
// alarm outbox retries until the message's maximum age). Messages name no secret and no payload.
import { CodedError, type CodeMeaning } from '../errors/code-table.js';

export const ALARM_SEND_ERRORS = {
  HTTP_STATUS: { retriable: true, meaning: 'the webhook or SMS gateway answered with a status other than 2xx (retried only for 5xx, 429 and 408)' },
  SECRET_UNREADABLE: { retriable: true, meaning: 'the webhook secret cannot be decrypted (a key may be added meanwhile)' },
  CHANNEL_UNCONFIGURED: { retriable: true, meaning: 'the channel has no server configured (it may be configured meanwhile)' },
  SMTP_REJECTED: { retriable: true, meaning: 'the SMTP server answered with an error (retried only for 4xx)' },
  SMTP_FAILED: { retriable: true, meaning: 'the SMTP connection or its TLS failed' },
  SEND_FAILED: { retriable: true, meaning: 'the send failed for a reason nobody foresaw' },
} as const satisfies Record<string, CodeMeaning>;

export type AlarmSendErrorCode = keyof typeof ALARM_SEND_ERRORS;

/** `retriable` is the error's own where the answer decides it (HTTP_STATUS, SMTP_REJECTED), else the table's. */
export class AlarmSendError extends CodedError(ALARM_SEND_ERRORS) {}

/**
 * nodemailer's failure as ours, the one place its errors are read: a 5xx SMTP answer will not change on a
 * retry; connection and TLS trouble may. Reduced to the code, so the URL's password never leaves.
 */
export function fromNodemailer(err: unknown): AlarmSendError {
  const e = err as { code?: unknown; responseCode?: unknown };
  if (typeof e?.responseCode === 'number') return new AlarmSendError('SMTP_REJECTED', `SMTP answered ${e.responseCode}`, { retriable: e.responseCode < 500 });
  if (typeof e?.code === 'string') return new AlarmSendError('SMTP_FAILED', `SMTP ${e.code}`);
  return new AlarmSendError('SEND_FAILED', 'the send failed');
}
