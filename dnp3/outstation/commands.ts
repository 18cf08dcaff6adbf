// Non-READ requests: WRITE (clear restart, set time), controls (refused: we have no outputs), enable/disable
// unsolicited. Each takes parsed headers and returns IIN bits plus state changes for the outstation to apply.
import { Dnp3Error } from '../errors.js';
import { Iin } from '../app/header.js';
import { Qualifier, parseObjectHeaders } from '../app/object-header.js';
import type { ObjectHeader } from '../app/object-header.js';
import { readT48 } from '../objects/codec.js';

/** A body that fails to parse: unknown object → OBJECT_UNKNOWN, anything else → PARAMETER_ERROR. */
export function parseErrorIin(err: unknown): number {
  if (err instanceof Dnp3Error) return err.code === 'APP_UNKNOWN_OBJECT' ? Iin.OBJECT_UNKNOWN : Iin.PARAMETER_ERROR;
  throw err;
}

export function parseHeadersOrIin(body: Uint8Array, withData: boolean): { headers: ObjectHeader[] } | { iin: number } {
  try {
    return { headers: parseObjectHeaders(body, withData) };
  } catch (err) {
    return { iin: parseErrorIin(err) };
  }
}

export interface WriteOutcome {
  iin: number;
  clearRestart?: boolean;
  /** Master's time for g50v1; for g50v3 the time at the recorded instant. */
  setTime?: { ms: number; atRecorded: boolean };
}

export function handleWrite(headers: readonly ObjectHeader[]): WriteOutcome {
  const out: WriteOutcome = { iin: 0 };
  for (const h of headers) {
    if (h.group === 80 && h.variation === 1) {
      // Only "index 7 = 0" is writable: the master acknowledging the restart (opendnp3 WriteHandler).
      const ok = h.range.kind === 'range' && h.range.start === 7 && h.range.stop === 7 && h.data?.[0] === 0;
      if (ok) out.clearRestart = true; else out.iin |= Iin.PARAMETER_ERROR;
    } else if (h.group === 50 && (h.variation === 1 || h.variation === 3)) {
      const ok = h.qualifier === Qualifier.COUNT_8 && h.range.kind === 'count' && h.range.count === 1 && h.data?.length === 6 && !out.setTime;
      if (!ok) { out.iin |= Iin.PARAMETER_ERROR; continue; }
      const view = new DataView(h.data!.buffer, h.data!.byteOffset, 6);
      out.setTime = { ms: readT48(view, 0), atRecorded: h.variation === 3 };
    } else {
      out.iin |= Iin.OBJECT_UNKNOWN;
    }
  }
  return out;
}

export const CONTROL_STATUS_NOT_SUPPORTED = 4;

/**
 * SELECT / OPERATE / DIRECT_OPERATE: this outstation has no outputs. Every CROB is echoed unchanged except
 * its status octet (NOT_SUPPORTED) and PARAMETER_ERROR is set, as opendnp3 does.
 */
export function handleControl(body: Uint8Array): { iin: number; echo: Uint8Array } {
  const parsed = parseHeadersOrIin(body, true);
  if ('iin' in parsed) return { iin: parsed.iin, echo: new Uint8Array(0) };
  const out: number[] = [];
  let iin = 0;
  for (const h of parsed.headers) {
    const indexed = h.qualifier === Qualifier.INDEX_8_COUNT_8 || h.qualifier === Qualifier.INDEX_16_COUNT_16;
    if (h.group !== 12 || h.variation !== 1) { iin |= Iin.OBJECT_UNKNOWN; continue; }
    if (!indexed || !h.indices || !h.data) { iin |= Iin.PARAMETER_ERROR; continue; }
    const wide = h.qualifier === Qualifier.INDEX_16_COUNT_16;
    const n = h.indices.length;
    out.push(12, 1, h.qualifier, ...(wide ? [n & 0xff, n >>> 8] : [n]));
    h.indices.forEach((index, k) => {
      out.push(...(wide ? [index & 0xff, index >>> 8] : [index]));
      const crob = h.data!.subarray(k * 11, k * 11 + 11);
      out.push(...crob.subarray(0, 10), CONTROL_STATUS_NOT_SUPPORTED);
    });
    iin |= Iin.PARAMETER_ERROR;
  }
  return { iin, echo: Uint8Array.from(out) };
}

/** ENABLE/DISABLE_UNSOLICITED: g60v2..v4 with qualifier 06. Returns the class mask (bit 1..3) named. */
export function unsolicitedClasses(headers: readonly ObjectHeader[]): { mask: number; iin: number } {
  let mask = 0;
  let iin = 0;
  for (const h of headers) {
    if (h.group !== 60 || h.variation < 2 || h.variation > 4) { iin |= Iin.OBJECT_UNKNOWN; continue; }
    if (h.range.kind !== 'all') { iin |= Iin.PARAMETER_ERROR; continue; }
    mask |= 1 << (h.variation - 1);
  }
  return { mask, iin };
}
