// The one error type of the IEC 104 layers: what went wrong (code) and in which layer, so the session can
// turn it into a diagnostic sentence (like dnp3/errors.ts). Bytes that do not parse never parse: not retriable.
import { FaultlineError } from '../errors/base.js';

/** Code -> what it means. */
export const IEC104_ERROR_CODES = {
  BAD_START: 'the APDU does not start with 0x68',
  BAD_LENGTH: 'a length outside what the frame or the type allows',
  BAD_CONTROL: 'control field octets no frame format allows',
  TRUNCATED: 'fewer octets than the length or the header says',
  UNKNOWN_TYPE: 'a type identification this station does not know',
  BAD_VSQ: 'a variable structure qualifier with no information objects',
  TOO_LONG: 'an ASDU longer than an APDU can carry',
  BAD_TIME: 'a CP56Time2a that is not a time',
} as const;
export type Iec104ErrorCode = keyof typeof IEC104_ERROR_CODES;

export class Iec104Error extends FaultlineError<Iec104ErrorCode> {
  constructor(code: Iec104ErrorCode, readonly layer: 'apci' | 'asdu', message: string) {
    super(code, message, { retriable: false });
  }
}
