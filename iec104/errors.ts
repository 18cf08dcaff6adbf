// The one error type of the IEC 104 layers: what went wrong (code) and in which layer, so the session can
// turn it into a diagnostic sentence (like dnp3/errors.ts).
export const IEC104_ERROR_CODES = [
  'BAD_START', 'BAD_LENGTH', 'BAD_CONTROL', 'TRUNCATED', 'UNKNOWN_TYPE', 'BAD_VSQ', 'TOO_LONG', 'BAD_TIME',
] as const;
export type Iec104ErrorCode = (typeof IEC104_ERROR_CODES)[number];

export class Iec104Error extends Error {
  constructor(readonly code: Iec104ErrorCode, readonly layer: 'apci' | 'asdu', message: string) {
    super(message);
    this.name = 'Iec104Error';
  }
}
