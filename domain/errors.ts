// Rejection codes shared by the queue pipeline (dead-letter records, `rejected_messages.code`) and the HTTP
// API error body (`{"error": {"code", "message"}}`, docs/decisions.md#errors). One table so the same code
// always means the same thing and maps to the same status (as fastify and kafkajs keep their error tables).
import { CodedError } from '../errors/code-table.js';

/** Code -> HTTP status, whether a retry can help, and the default human message. */
export const REJECTION_CODES = {
  /** The body is not JSON, or its root is not a JSON object. */
  MALFORMED: { status: 400, retriable: false, message: 'The message is not a JSON object.' },
  /** JSON object, but a field is missing, of the wrong type or out of range (the reason names it). */
  INVALID: { status: 400, retriable: false, message: 'The message has an invalid field.' },
  /** The body is larger than the configured limit (default 1 MiB); it is not parsed at all. */
  TOO_LARGE: { status: 413, retriable: false, message: 'The message is larger than the size limit.' },
  /** The IMEI is not in device information (enrich stage, re-submission of rejected messages, API lookups). */
  UNKNOWN_DEVICE: { status: 404, retriable: false, message: 'No device with this IMEI is registered.' },
} as const satisfies Record<string, { status: number; retriable: boolean; message: string }>;

export type RejectionCode = keyof typeof REJECTION_CODES;

export function isRejectionCode(value: unknown): value is RejectionCode {
  return typeof value === 'string' && Object.hasOwn(REJECTION_CODES, value);
}

/**
 * The typed error for callers that prefer throwing to a result object (e.g. an API handler whose one
 * `onError` renders `{code, message}`). `retriable` is false for every code in the table: a bad message
 * stays bad, so it goes to the dead-letter topic instead of being retried.
 *
 * @example
 *   throw new RejectionError('INVALID', 'device_data.date: "yesterday" is not an ISO 8601 timestamp');
 */
export class RejectionError extends CodedError(REJECTION_CODES) {
  readonly status: number;
  /** The device's IMEI when it could be read, for keying the dead letter. */
  readonly imei: string | undefined;

  constructor(code: RejectionCode, reason?: string, options: { imei?: string; cause?: unknown } = {}) {
    super(code, reason, { cause: options.cause });
    this.status = REJECTION_CODES[code].status;
    this.imei = options.imei;
  }
}
