// Structured logs (pino, JSON lines). Secrets never reach a log line: fields with these names are censored
// wherever they appear, as a net under the rule that code does not log credentials in the first place.
import { pino, type Logger } from 'pino';

export const log: Logger = pino({
  level: process.env.LOG_LEVEL ?? 'info',
  base: { service: 'faultline' },
  redact: {
    paths: ['password', 'Pwd', 'secret', 'token', 'accessToken', 'authorization', '*.password', '*.Pwd', '*.secret', '*.token', '*.accessToken', '*.authorization', 'headers.authorization'],
    censor: '[redacted]',
  },
});

export type { Logger };
