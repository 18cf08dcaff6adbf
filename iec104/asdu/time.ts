// CP56Time2a (IEC 60870-5-101 clause 7.2.6.18): milliseconds of the minute, minute (IV), hour (SU), day of
// month with day of week, month, year 0..99. This station sends and reads it as UTC (docs/decisions.md#iec-104-outstation).
import { Iec104Error } from '../errors.js';

export const CP56_SIZE = 7;

export function writeCp56(view: DataView, at: number, ms: number, invalid = false): void {
  const d = new Date(ms);
  view.setUint16(at, d.getUTCSeconds() * 1000 + d.getUTCMilliseconds(), true);
  view.setUint8(at + 2, d.getUTCMinutes() | (invalid ? 0x80 : 0));
  view.setUint8(at + 3, d.getUTCHours());
  const dow = d.getUTCDay() === 0 ? 7 : d.getUTCDay(); // 1 = Monday .. 7 = Sunday
  view.setUint8(at + 4, d.getUTCDate() | (dow << 5));
  view.setUint8(at + 5, d.getUTCMonth() + 1);
  view.setUint8(at + 6, d.getUTCFullYear() % 100);
}

/** The time in ms (years 00..99 read as 2000..2099) and its invalid bit. */
export function readCp56(view: DataView, at: number): { ms: number; invalid: boolean } {
  const msOfMinute = view.getUint16(at, true);
  const min = view.getUint8(at + 2) & 0x3f;
  const hour = view.getUint8(at + 3) & 0x1f;
  const day = view.getUint8(at + 4) & 0x1f;
  const month = view.getUint8(at + 5) & 0x0f;
  const year = view.getUint8(at + 6) & 0x7f;
  if (msOfMinute > 59_999 || min > 59 || hour > 23 || day < 1 || day > 31 || month < 1 || month > 12) {
    throw new Iec104Error('BAD_TIME', 'asdu', `CP56Time2a ${[msOfMinute, min, hour, day, month, year].join('/')} is not a time`);
  }
  return { ms: Date.UTC(2000 + year, month - 1, day, hour, min) + msOfMinute, invalid: (view.getUint8(at + 2) & 0x80) !== 0 };
}
