// One error type for the protocol stack. Parsers throw only this, so a fuzz test can assert that random input
// produces nothing else; `code` is stable and machine-readable, `layer` says which parser refused the bytes.

import { FaultlineError } from '../errors/base.js';

export type Dnp3Layer = 'link' | 'transport' | 'app' | 'objects' | 'outstation' | 'server';

export const DNP3_ERROR_CODES = {
  LINK_TOO_SHORT: 'fewer octets than a frame header needs',
  LINK_BAD_START: 'frame does not start with 0x05 0x64',
  LINK_BAD_LENGTH: 'LENGTH below 5 or frame size differs from LENGTH',
  LINK_HEADER_CRC: 'header CRC mismatch',
  LINK_BODY_CRC: 'data block CRC mismatch',
  LINK_BAD_FUNCTION: 'function code unknown for the PRM bit',
  LINK_BAD_FCV: 'FCV/DFC bit inconsistent with the function',
  LINK_UNEXPECTED_DATA: 'user data present (or missing) for the function',
  LINK_DATA_TOO_LONG: 'more than 250 octets of user data',
  APP_TRUNCATED: 'fragment ends inside a header or object',
  APP_BAD_QUALIFIER: 'qualifier not supported',
  APP_BAD_RANGE: 'start above stop',
  APP_UNKNOWN_OBJECT: 'group/variation not in the object table',
  APP_TOO_LARGE: 'fragment larger than the maximum size',
  OBJECT_BAD_SIZE: 'object data has the wrong size',
  TLS_IDENTITY: 'client certificate maps to no integration',
} as const;

export type Dnp3ErrorCode = keyof typeof DNP3_ERROR_CODES;

export class Dnp3Error extends FaultlineError<Dnp3ErrorCode> {
  readonly layer: Dnp3Layer;
  constructor(layer: Dnp3Layer, code: Dnp3ErrorCode, detail?: string, cause?: unknown) {
    // Bytes that do not parse stay unparseable: never worth a retry.
    super(code, detail ? `${DNP3_ERROR_CODES[code]}: ${detail}` : DNP3_ERROR_CODES[code], { retriable: false, cause });
    this.layer = layer;
  }
}
