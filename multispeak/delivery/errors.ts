// Why a delivery attempt failed (a code, retriable or not). Messages never quote the envelope,
// the credentials or the OMS's answer beyond its faultstring/errorString.
import { CodedError, type CodeMeaning } from '../../errors/code-table.js';

/** Code -> what it means and whether another attempt can help (the outbox retries until the row's maximum age). */
export const DELIVERY_ERRORS = {
  TIMEOUT: { retriable: true, meaning: 'no connection, or no complete answer, within the timeout' },
  CONNECT_FAILED: { retriable: true, meaning: 'the connection failed or was cut' },
  TLS_FAILED: { retriable: true, meaning: 'the TLS handshake failed (the operator may fix the CA or certificate meanwhile)' },
  HTTP_STATUS: { retriable: true, meaning: 'the OMS answered with a status other than 2xx' },
  SOAP_FAULT: { retriable: true, meaning: 'the OMS answered with a SOAP Fault' },
  ERROR_OBJECT: { retriable: true, meaning: 'the OMS answered with an errorObject' },
  CREDENTIALS_UNREADABLE: { retriable: true, meaning: 'the integration credentials cannot be decrypted (a key may be added meanwhile)' },
  BAD_INTEGRATION: { retriable: true, meaning: 'the integration is missing or incomplete (it may be fixed meanwhile)' },
  BAD_PAYLOAD: { retriable: false, meaning: 'the stored notification cannot be turned into an envelope' },
} as const satisfies Record<string, CodeMeaning>;

export type DeliveryErrorCode = keyof typeof DELIVERY_ERRORS;

export class DeliveryError extends CodedError(DELIVERY_ERRORS) {}
