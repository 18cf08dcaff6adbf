// SOAP 1.1 Faults (docs/decisions.md#errors: SOAP errors are SOAP 1.1 Faults). HTTP 500 as SOAP 1.1 section
// 6.2 requires; faultcode Client (the request is wrong) or Server (our side). The faultstring is a fixed
// sentence of this table, never a stack or SQL.
import { SERVED_OPERATIONS } from './operations.js';
import { escapeAttr } from './wsdl.js';
import { FaultlineError } from '../../errors/base.js';

export const SOAP_FAULTS = {
  BAD_CREDENTIALS: ['Client', 'Authentication failed: MultiSpeakMsgHeader UserID/Pwd are not a valid portal login.'],
  MISSING_CREDENTIALS: ['Client', 'MultiSpeakMsgHeader with UserID and Pwd attributes is required.'],
  MALFORMED_ENVELOPE: ['Client', 'The request is not a SOAP 1.1 envelope with one operation element in its Body.'],
  DTD_FORBIDDEN: ['Client', 'Document type declarations and entities are not accepted.'],
  TOO_LARGE: ['Client', 'The request body is too large.'],
  UNSUPPORTED_VERSION: ['Client', 'The operation element is not in a supported MultiSpeak namespace (Version_4.1_Release or Version_3.0).'],
  UNKNOWN_OPERATION: ['Client', `Unknown operation: this endpoint serves ${SERVED_OPERATIONS.join(', ')}.`],
  RATE_LIMITED: ['Client', 'Too many failed logins; try again later.'],
  BUSY: ['Server', 'Too many logins at once; try again shortly.'],
  INTERNAL: ['Server', 'An internal error occurred; it has been logged.'],
} as const satisfies Record<string, readonly ['Client' | 'Server', string]>;

export type SoapFaultCode = keyof typeof SOAP_FAULTS;

export class SoapFault extends FaultlineError<SoapFaultCode> {
  /** retryAfterS: sent as Retry-After (a rate limit or a busy password check): the caller may try again. */
  constructor(code: SoapFaultCode, readonly detail?: string, readonly retryAfterS?: number) {
    super(code, SOAP_FAULTS[code][1], { retriable: code === 'RATE_LIMITED' || code === 'BUSY' });
  }
}

export function faultXml(fault: SoapFault): string {
  const [who, text] = SOAP_FAULTS[fault.code];
  const message = fault.detail ? `${text} ${fault.detail}` : text;
  return '<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><soap:Fault>'
    + `<faultcode>soap:${who}</faultcode><faultstring>${escapeAttr(message)}</faultstring>`
    + `<detail><code>${fault.code}</code></detail></soap:Fault></soap:Body></soap:Envelope>`;
}

export function faultResponse(fault: SoapFault): Response {
  const retry: Record<string, string> = fault.retryAfterS ? { 'retry-after': String(fault.retryAfterS) } : {};
  return new Response(faultXml(fault), { status: 500, headers: { 'content-type': 'text/xml; charset=utf-8', ...retry } });
}
