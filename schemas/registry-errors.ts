// Errors of the schema registry client (schemas/registry.ts). One table, like domain/errors.ts: a code
// always means the same thing, and `retriable` tells a stage whether waiting and trying again can help.
import { CodedError } from '../errors/code-table.js';

export const REGISTRY_ERROR_CODES = {
  /** The registry refused a new schema version under the subject's compatibility rule (HTTP 409). */
  SCHEMA_INCOMPATIBLE: { retriable: false, message: 'The schema is not compatible with the registered versions.' },
  /** The registry could not parse the schema (HTTP 422, Confluent error 42201). */
  SCHEMA_INVALID: { retriable: false, message: 'The registry rejected the schema as invalid.' },
  /** No such subject, version or schema id (HTTP 404). */
  NOT_FOUND: { retriable: false, message: 'The subject or schema id is not registered.' },
  /** The value does not match the schema it is encoded with. */
  VALUE_INVALID: { retriable: false, message: 'The value does not match the schema.' },
  /** The record's schema cannot be resolved into the reader's (a change the compatibility rule should have refused). */
  SCHEMA_UNREADABLE: { retriable: false, message: 'Records of this schema cannot be read into the current schema.' },
  /** The bytes are not in the Confluent wire format (magic byte 0, 4-byte schema id, payload). */
  WIRE_FORMAT_INVALID: { retriable: false, message: 'The bytes are not in the Confluent wire format.' },
  /** No answer: connection refused or reset, DNS failure, timeout. */
  REGISTRY_UNAVAILABLE: { retriable: true, message: 'The schema registry is unavailable.' },
  /** The registry refused the request itself (another 4xx: bad request, unauthorized, forbidden). */
  REQUEST_REJECTED: { retriable: false, message: 'The schema registry rejected the request.' },
  /** The registry answered with a server error (5xx) or with a body this client does not understand. */
  REGISTRY_ERROR: { retriable: true, message: 'The schema registry answered with an error.' },
} as const satisfies Record<string, { retriable: boolean; message: string }>;

export type RegistryErrorCode = keyof typeof REGISTRY_ERROR_CODES;

/**
 * @example
 *   try { await registry.register('device-events-value', schema); }
 *   catch (err) { if (err instanceof RegistryError && err.code === 'SCHEMA_INCOMPATIBLE') ... }
 */
export class RegistryError extends CodedError(REGISTRY_ERROR_CODES) {
  /** HTTP status of the registry's answer, when there was one. */
  readonly status: number | undefined;
  /** Confluent's numeric `error_code` from the answer body (e.g. 40401, 42201), when there was one. */
  readonly errorCode: number | undefined;

  constructor(code: RegistryErrorCode, reason?: string, options: { status?: number; errorCode?: number; cause?: unknown } = {}) {
    super(code, reason, { cause: options.cause });
    this.status = options.status;
    this.errorCode = options.errorCode;
  }
}

/** The code for an HTTP error status from the registry. */
export function codeForStatus(status: number): RegistryErrorCode {
  if (status === 409) return 'SCHEMA_INCOMPATIBLE';
  if (status === 422) return 'SCHEMA_INVALID';
  if (status === 404) return 'NOT_FOUND';
  if (status >= 400 && status < 500) return 'REQUEST_REJECTED';
  return 'REGISTRY_ERROR';
}
