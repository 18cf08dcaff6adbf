// The application functions of the controlled station (IEC 60870-5-101/104 clause 7.4): general and group
// interrogation, read, clock synchronisation, test command; everything else refused with the standard's
// negative confirmation (docs/decisions.md#iec-104-outstation). Pure: an ASDU and the image in, ASDUs out.
import { Iec104Error } from '../errors.js';
import { Cot, groupCot } from '../asdu/cot.js';
import { decodeAsdu, encodeAsdu, objectsPerAsdu, type Asdu, type InfoObject } from '../asdu/codec.js';
import { GLOBAL_CA } from '../asdu/header.js';
import { TypeId, typeSpec } from '../asdu/types.js';
import { TYPES, type StationPoint } from '../data/point-map.js';
import type { RefusalReason } from '../diagnostics/reasons.js';
import type { ProcessImage } from './image.js';

export interface ApplicationResult {
  replies: Uint8Array[];
  refusal?: RefusalReason;
  /** The time a clock synchronisation command carried (ms), when one was accepted. */
  clockSync?: number;
}

/** Interrogation groups (QOI 21..36 = group 1..16): 1 the single points, 2 the measured values, the others empty. */
export const GROUP_KINDS: Readonly<Record<number, StationPoint['kind']>> = { 1: 'binary', 2: 'analog' };
const QOI_STATION = 20;

/** The same ASDU with a new cause (and P/N): how a station confirms or refuses a command (mirror). */
function mirror(bytes: Uint8Array, cause: number, negative: boolean): Uint8Array {
  const out = bytes.slice();
  out[2] = (out[2]! & 0x80) | (negative ? 0x40 : 0) | cause;
  return out;
}

const staticObject = (p: StationPoint): InfoObject => ({ ioa: p.ioa, value: p.value, quality: p.quality });

/** Packs points of one kind into as few ASDUs as fit (no time: interrogation and read answers). */
export function packStatic(points: readonly StationPoint[], cause: number, ca: number, originator: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (const kind of ['binary', 'analog'] as const) {
    const typeId = TYPES[kind].static;
    const objs = points.filter((p) => p.kind === kind).map(staticObject);
    const per = objectsPerAsdu(typeId);
    for (let i = 0; i < objs.length; i += per) {
      out.push(encodeAsdu({ typeId, cause, negative: false, test: false, originator, commonAddress: ca, objects: objs.slice(i, i + per) }));
    }
  }
  return out;
}

/** Spontaneous events (COT 3) with the devices' own timestamps, packed per kind in arrival order. */
export function packEvents(events: readonly StationPoint[], ca: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  let run: StationPoint[] = [];
  const flush = () => {
    if (run.length === 0) return;
    const typeId = TYPES[run[0]!.kind].event;
    out.push(encodeAsdu({ typeId, cause: Cot.SPONTANEOUS, negative: false, test: false, originator: 0, commonAddress: ca,
      objects: run.map((p) => ({ ioa: p.ioa, value: p.value, quality: p.quality, time: p.time })) }));
    run = [];
  };
  for (const e of events) {
    if (run.length > 0 && (run[0]!.kind !== e.kind || run.length >= objectsPerAsdu(TYPES[e.kind].event))) flush();
    run.push(e);
  }
  flush();
  return out;
}

function interrogate(bytes: Uint8Array, a: Asdu, image: ProcessImage, targets: number[]): ApplicationResult {
  const qoi = a.objects[0]!.qualifier ?? 0;
  if (a.cause !== Cot.ACTIVATION) return { replies: [mirror(bytes, Cot.UNKNOWN_COT, true)], refusal: 'unknownCause' };
  if (a.objects[0]!.ioa !== 0) return { replies: [mirror(bytes, Cot.UNKNOWN_IOA, true)], refusal: 'unknownIoa' };
  const group = qoi - QOI_STATION;
  if (group < 0 || group > 16) return { replies: [mirror(bytes, Cot.ACTIVATION_CON, true)] };
  const replies: Uint8Array[] = [];
  for (const ca of targets) {
    const head = { typeId: TypeId.C_IC_NA_1, negative: false, test: a.test, originator: a.originator, commonAddress: ca, objects: [{ ioa: 0, qualifier: qoi }] };
    replies.push(encodeAsdu({ ...head, cause: Cot.ACTIVATION_CON }));
    const kind = group === 0 ? undefined : GROUP_KINDS[group];
    const points = group === 0 ? image.points(ca) : kind ? image.points(ca).filter((p) => p.kind === kind) : [];
    replies.push(...packStatic(points, group === 0 ? Cot.INTERROGATED_BY_STATION : groupCot(group), ca, a.originator));
    replies.push(encodeAsdu({ ...head, cause: Cot.ACTIVATION_TERM }));
  }
  return { replies };
}

export function handleAsdu(bytes: Uint8Array, image: ProcessImage): ApplicationResult {
  let a: Asdu;
  try {
    a = decodeAsdu(bytes);
  } catch (e) {
    if (e instanceof Iec104Error && e.code === 'UNKNOWN_TYPE' && bytes.length >= 6) return { replies: [mirror(bytes, Cot.UNKNOWN_TYPE, true)], refusal: 'unknownType' };
    if (e instanceof Iec104Error) return { replies: [], refusal: 'malformedAsdu' };
    throw e;
  }
  const spec = typeSpec(a.typeId)!;
  // Monitor-direction types are ours to send, never a command.
  if (spec.direction !== 'control') return { replies: [mirror(bytes, Cot.UNKNOWN_TYPE, true)], refusal: 'unknownType' };
  const global = a.commonAddress === GLOBAL_CA && (a.typeId === TypeId.C_IC_NA_1 || a.typeId === TypeId.C_CS_NA_1);
  if (!global && !image.has(a.commonAddress)) return { replies: [mirror(bytes, Cot.UNKNOWN_CA, true)], refusal: 'unknownCommonAddress' };
  const targets = global ? image.commonAddresses() : [a.commonAddress];
  const first = a.objects[0]!;
  switch (a.typeId) {
    case TypeId.C_IC_NA_1:
      return interrogate(bytes, a, image, targets);
    case TypeId.C_RD_NA_1: {
      if (a.cause !== Cot.REQUEST) return { replies: [mirror(bytes, Cot.UNKNOWN_COT, true)], refusal: 'unknownCause' };
      const p = image.point(a.commonAddress, first.ioa);
      if (!p) return { replies: [mirror(bytes, Cot.UNKNOWN_IOA, true)], refusal: 'unknownIoa' };
      return { replies: packStatic([p], Cot.REQUEST, a.commonAddress, a.originator) };
    }
    case TypeId.C_CS_NA_1:
    case TypeId.C_TS_TA_1: {
      if (a.cause !== Cot.ACTIVATION) return { replies: [mirror(bytes, Cot.UNKNOWN_COT, true)], refusal: 'unknownCause' };
      if (first.ioa !== 0) return { replies: [mirror(bytes, Cot.UNKNOWN_IOA, true)], refusal: 'unknownIoa' };
      const replies = global ? targets.map((ca) => encodeAsdu({ ...a, commonAddress: ca, cause: Cot.ACTIVATION_CON })) : [mirror(bytes, Cot.ACTIVATION_CON, false)];
      return a.typeId === TypeId.C_CS_NA_1 && first.time !== undefined ? { replies, clockSync: first.time } : { replies };
    }
    default:
      return { replies: [mirror(bytes, Cot.UNKNOWN_TYPE, true)], refusal: 'unknownType' };
  }
}
