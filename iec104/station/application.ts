// The application functions of the controlled station (IEC 60870-5-101/104 clause 7.4): general and group
// interrogation, read, clock synchronisation, test command; everything else refused with the standard's
// negative confirmation (docs/decisions.md#iec-104-outstation). Pure: an ASDU and the image in, ASDUs out.
import { Iec104Error } from '../errors.js';
import { Cot, groupCot } from '../asdu/cot.js';
import { decodeAsdu, encodeAsdu, objectsPerAsdu, type Asdu, type InfoObject } from '../asdu/codec.js';
import { GLOBAL_CA } from '../asdu/header.js';
import { TypeId, typeSpec } from '../asdu/types.js';
import { INTERROGATION_GROUP, TYPES, type StationPoint } from '../data/point-map.js';
import type { RefusalReason } from '../diagnostics/reasons.js';
import type { ProcessImage } from './image.js';

export interface ApplicationResult {
  replies: Uint8Array[];
  refusal?: RefusalReason;
  /** The time a clock synchronisation command carried (ms), when one was accepted. */
  clockSync?: number;
}

/** Interrogation groups (QOI 21..36 = group 1..16): data/point-map.ts INTERROGATION_GROUP's, the others empty. */
export const GROUP_KINDS: Readonly<Record<number, StationPoint['kind']>> = Object.fromEntries(
  (Object.entries(INTERROGATION_GROUP) as [StationPoint['kind'], number][]).map(([kind, group]) => [group, kind]));
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

/** What a command handler is given: the ASDU as received and decoded, the image, the common addresses it targets. */
interface Command { bytes: Uint8Array; a: Asdu; image: ProcessImage; global: boolean; targets: number[] }

function interrogate({ bytes, a, image, targets }: Command): ApplicationResult {
  const qoi = a.objects[0]!.qualifier ?? 0;
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

function read({ bytes, a, image }: Command): ApplicationResult {
  const p = image.point(a.commonAddress, a.objects[0]!.ioa);
  if (!p) return { replies: [mirror(bytes, Cot.UNKNOWN_IOA, true)], refusal: 'unknownIoa' };
  return { replies: packStatic([p], Cot.REQUEST, a.commonAddress, a.originator) };
}

/** Clock synchronisation and the test command: confirmed, mirrored (per common address for the global one). */
function confirm({ bytes, a, global, targets }: Command): ApplicationResult {
  const first = a.objects[0]!;
  if (first.ioa !== 0) return { replies: [mirror(bytes, Cot.UNKNOWN_IOA, true)], refusal: 'unknownIoa' };
  const replies = global ? targets.map((ca) => encodeAsdu({ ...a, commonAddress: ca, cause: Cot.ACTIVATION_CON })) : [mirror(bytes, Cot.ACTIVATION_CON, false)];
  return a.typeId === TypeId.C_CS_NA_1 && first.time !== undefined ? { replies, clockSync: first.time } : { replies };
}

export interface CommandHandling {
  /** The one cause a command of this type may carry; any other is refused with COT 45. */
  accepts: number;
  /** Causes of the station's answers: the confirmation (and termination) of the command, or the data it reads. */
  answers: readonly number[];
  /** May be sent to the global common address 0xFFFF (every bank answers). */
  global: boolean;
  handle(c: Command): ApplicationResult;
}

/**
 * The commands this station carries out, by type id: the one table handleAsdu dispatches on, and what the
 * interoperability list (iec104/profile/interoperability.ts) states as supported in control direction.
 * Every other type gets a negative confirmation with COT 44.
 */
export const COMMAND_HANDLING: ReadonlyMap<number, CommandHandling> = new Map<number, CommandHandling>([
  [TypeId.C_IC_NA_1, { accepts: Cot.ACTIVATION, answers: [Cot.ACTIVATION_CON, Cot.ACTIVATION_TERM], global: true, handle: interrogate }],
  [TypeId.C_RD_NA_1, { accepts: Cot.REQUEST, answers: [Cot.REQUEST], global: false, handle: read }],
  [TypeId.C_CS_NA_1, { accepts: Cot.ACTIVATION, answers: [Cot.ACTIVATION_CON], global: true, handle: confirm }],
  [TypeId.C_TS_TA_1, { accepts: Cot.ACTIVATION, answers: [Cot.ACTIVATION_CON], global: false, handle: confirm }],
]);

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
  const handling = COMMAND_HANDLING.get(a.typeId);
  // Monitor-direction types are ours to send, never a command.
  if (spec.direction !== 'control' || !handling) return { replies: [mirror(bytes, Cot.UNKNOWN_TYPE, true)], refusal: 'unknownType' };
  const global = a.commonAddress === GLOBAL_CA && handling.global;
  if (!global && !image.has(a.commonAddress)) return { replies: [mirror(bytes, Cot.UNKNOWN_CA, true)], refusal: 'unknownCommonAddress' };
  if (a.cause !== handling.accepts) return { replies: [mirror(bytes, Cot.UNKNOWN_COT, true)], refusal: 'unknownCause' };
  return handling.handle({ bytes, a, image, global, targets: global ? image.commonAddresses() : [a.commonAddress] });
}
