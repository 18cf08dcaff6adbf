// Encode and decode ASDUs by interpreting the field list of their type's table row (types.ts).
import { Iec104Error } from '../errors.js';
import { MAX_ASDU_LENGTH } from '../apci/apci.js';
import { HEADER_SIZE, IOA_SIZE, readHeader, readIoa, writeHeader, writeIoa, type AsduHeader } from './header.js';
import { readCp56, writeCp56 } from './time.js';
import { elementSize, FIELD_SIZE, SPI, typeSpec, type TypeSpec } from './types.js';

/** One information object: which fields are meaningful depends on the type. */
export interface InfoObject {
  ioa: number;
  /** Single point state (0/1) or short float. */
  value?: number;
  /** Quality bits (types.ts Quality), without the SIQ state bit. */
  quality?: number;
  /** CP56Time2a as ms since 1970 UTC, and its IV bit. */
  time?: number;
  timeInvalid?: boolean;
  /** QOI, COI. */
  qualifier?: number;
  /** Test sequence counter (C_TS_TA_1). */
  tsc?: number;
}

export interface Asdu extends Omit<AsduHeader, 'count' | 'sequence'> {
  objects: InfoObject[];
}

function specOf(typeId: number): TypeSpec {
  const t = typeSpec(typeId);
  if (!t) throw new Iec104Error('UNKNOWN_TYPE', 'asdu', `type identification ${typeId} is not one this station knows`);
  return t;
}

/** How many objects of this type fit one ASDU (each with its IOA). */
export const objectsPerAsdu = (typeId: number): number =>
  Math.min(127, Math.floor((MAX_ASDU_LENGTH - HEADER_SIZE) / (IOA_SIZE + elementSize(specOf(typeId)))));

/** Encodes with one IOA per object (SQ = 0). */
export function encodeAsdu(a: Asdu): Uint8Array {
  const t = specOf(a.typeId);
  const size = HEADER_SIZE + a.objects.length * (IOA_SIZE + elementSize(t));
  if (size > MAX_ASDU_LENGTH) throw new Iec104Error('TOO_LONG', 'asdu', `${a.objects.length} ${t.name} objects need ${size} octets, more than ${MAX_ASDU_LENGTH}`);
  const out = new Uint8Array(size);
  const v = new DataView(out.buffer);
  writeHeader(v, { ...a, sequence: false, count: a.objects.length });
  let at = HEADER_SIZE;
  for (const o of a.objects) {
    writeIoa(v, at, o.ioa); at += IOA_SIZE;
    for (const f of t.fields) {
      switch (f) {
        case 'siq': v.setUint8(at, ((o.quality ?? 0) & 0xf0) | (o.value ? SPI : 0)); break;
        case 'qds': v.setUint8(at, (o.quality ?? 0) & 0xf1); break;
        case 'r32': v.setFloat32(at, o.value ?? 0, true); break;
        case 'cp56': writeCp56(v, at, o.time ?? 0, o.timeInvalid); break;
        case 'qoi': case 'coi': v.setUint8(at, o.qualifier ?? 0); break;
        case 'tsc': case 'fbp': v.setUint16(at, o.tsc ?? 0, true); break;
      }
      at += FIELD_SIZE[f];
    }
  }
  return out;
}

export function decodeAsdu(b: Uint8Array): Asdu {
  const h = readHeader(b);
  const t = specOf(h.typeId);
  const el = elementSize(t);
  const want = HEADER_SIZE + (h.sequence ? IOA_SIZE + h.count * el : h.count * (IOA_SIZE + el));
  if (h.count === 0) throw new Iec104Error('BAD_VSQ', 'asdu', `${t.name} with no information objects`);
  if (b.length !== want) throw new Iec104Error('BAD_LENGTH', 'asdu', `${t.name} with ${h.count} object(s) is ${want} octets, this one ${b.length}`);
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const objects: InfoObject[] = [];
  let at = HEADER_SIZE;
  let base = 0;
  if (h.sequence) { base = readIoa(v, at); at += IOA_SIZE; }
  for (let i = 0; i < h.count; i++) {
    let ioa = base + i;
    if (!h.sequence) { ioa = readIoa(v, at); at += IOA_SIZE; }
    const o: InfoObject = { ioa };
    for (const f of t.fields) {
      switch (f) {
        case 'siq': { const q = v.getUint8(at); o.value = q & SPI; o.quality = q & 0xf0; break; }
        case 'qds': o.quality = v.getUint8(at) & 0xf1; break;
        case 'r32': o.value = v.getFloat32(at, true); break;
        case 'cp56': { const c = readCp56(v, at); o.time = c.ms; o.timeInvalid = c.invalid; break; }
        case 'qoi': case 'coi': o.qualifier = v.getUint8(at); break;
        case 'tsc': case 'fbp': o.tsc = v.getUint16(at, true); break;
      }
      at += FIELD_SIZE[f];
    }
    objects.push(o);
  }
  return { typeId: h.typeId, cause: h.cause, negative: h.negative, test: h.test, originator: h.originator, commonAddress: h.commonAddress, objects };
}
