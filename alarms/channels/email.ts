// E-mail over SMTP with nodemailer. smtp:// requires STARTTLS (a server that does not offer it is a failure,
// never a plain-text fallback); smtps:// is TLS from the first byte. ALARM_SMTP_CA_FILE adds the CA of a
// private mail relay. The URL's password stays inside the transport: errors are reduced to their code.
import { readFileSync } from 'node:fs';
import nodemailer from 'nodemailer';
import type { Transporter } from 'nodemailer';
import { fromNodemailer } from '../send-errors.js';

export interface EmailSettings { smtpUrl: string; from: string; caFile: string | null }

export interface Mailer {
  send(to: string, subject: string, text: string, messageId: string): Promise<void>;
  close(): void;
}

export function createMailer({ smtpUrl, from, caFile }: EmailSettings): Mailer {
  const url = new URL(smtpUrl);
  const secure = url.protocol === 'smtps:';
  const transport: Transporter = nodemailer.createTransport({
    host: url.hostname,
    port: Number(url.port) || (secure ? 465 : 587),
    secure,
    requireTLS: !secure,
    auth: url.username ? { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } : undefined,
    tls: { minVersion: 'TLSv1.2', ...(caFile ? { ca: readFileSync(caFile) } : {}), servername: url.hostname },
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 20_000,
    logger: false,
    debug: false,
  });
  return {
    async send(to, subject, text, messageId) {
      // nodemailer's errors become ours here, once (alarms/send-errors.ts).
      await transport.sendMail({ from, to, subject, text, messageId, headers: { 'X-Faultline-Message': messageId } }).catch((err: unknown) => { throw fromNodemailer(err); });
    },
    close: () => transport.close(),
  };
}
