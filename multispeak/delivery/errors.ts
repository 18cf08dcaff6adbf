// Why a delivery attempt failed (a code, retriable or not). Messages never quote the envelope,
// the credentials or the OMS's answer beyond its faultstring/errorString.
export const DELIVERY_ERRORS = {
  TIMEOUT: true,
  CONNECT_FAILED: true,
  TLS_FAILED: true,
  HTTP_STATUS: true,
  SOAP_FAULT: true,
  ERROR_OBJECT: true,
  CREDENTIALS_UNREADABLE: true,
  BAD_INTEGRATION: true,
  BAD_PAYLOAD: false,
} as const;

export type DeliveryErrorCode = keyof typeof DELIVERY_ERRORS;

export class DeliveryError extends Error {
  readonly retriable: boolean;

  constructor(readonly code: DeliveryErrorCode, message: string) {
    super(message);
    this.name = 'DeliveryError';
    this.retriable = DELIVERY_ERRORS[code];
  }
}
