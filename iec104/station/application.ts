// The application functions of the controlled station (IEC 60870-5-101/104 clause 7.4): general and group
// interrogation, read, clock synchronisation, test command; everything else refused with the standard's
// negative confirmation (docs/decisions.md#iec-104-outstation). The points are the owner's (StationHandlers):
// this layer knows no point map. Pure: an ASDU and the handlers in, ASDUs out.
import { Iec104Error } from '../errors.js';
import { Cot } from '../asdu/cot.js';
import { decodeAsdu, encodeAsdu, type Asdu } from '../asdu/codec.js';
import { GLOBAL_CA } from '../asdu/header.js';
import { TypeId, typeSpec } from '../asdu/types.js';
import type { RefusalReason } from '../diagnostics/reasons.js';

/**
 * What the station asks of its owner, as lib60870's CS104_Slave takes handlers: the station carries out the
 * protocol (confirmations, terminations, refusals), the owner knows the points (iec104/data/asdus.ts imageHandlers).
 */
export interface StationHandlers {
  /** The common addresses served, ascending: any other is refused with COT 46; the global address 0xFFFF means each. */
  commonAddresses(): readonly number[];
  /**
   * An interrogation's data at one common address (QOI 20: the station, 21..36: group 1..16), every ASDU with
   * cause `qoi` (20, or 20 + group). Pulled one ASDU at a time as the send window opens, so it can be a generator.
   */
  onInterrogation(ca: number, qoi: number, originator: number): Iterable<Uint8Array>;
  /** A read command's answer (COT 5), or undefined when the IOA is unknown (COT 47). */
  onRead(ca: number, ioa: number, originator: number): Uint8Array | undefined;
}

export interface ApplicationResult {
  replies: Uint8Array[];
  /** An accepted interrogation's answer (ACT_CON, data, ACT_TERM per common address), built as it is pulled. */
  interrogation?: Iterable<Uint8Array>;
  refusal?: RefusalReason;
  /** The time a clock synchronisation command carried (ms), when one was accepted. */
  clockSync?: number;
}

const QOI_STATION = 20;
const QOI_LAST_GROUP = 36;

/** The same ASDU with a new cause (and P/N): how a station confirms or refuses a command (mirror). */
function mirror(bytes: Uint8Array, cause: number, negative: boolean): Uint8Array {
  const out = bytes.slice();
  out[2] = (out[2]! & 0x80) | (negative ? 0x40 : 0) | cause;
  return out;
}

/** What a command handler is given: the ASDU as received and decoded, the owner's handlers, the common addresses it targets. */
interface Command { bytes: Uint8Array; a: Asdu; handlers: StationHandlers; global: boolean; targets: readonly number[]; interrogating: boolean }

function* interrogationAnswer({ a, handlers, targets }: Command, qoi: number): Generator<Uint8Array> {
  for (const ca of targets) {
    const head = { typeId: TypeId.C_IC_NA_1, negative: false, test: a.test, originator: a.originator, commonAddress: ca, objects: [{ ioa: 0, qualifier: qoi }] };
    yield encodeAsdu({ ...head, cause: Cot.ACTIVATION_CON });
    yield* handlers.onInterrogation(ca, qoi, a.originator);
    yield encodeAsdu({ ...head, cause: Cot.ACTIVATION_TERM });
  }
}

/** One interrogation at a time per connection: another while one runs gets a negative ACT_CON (docs/decisions.md#iec-104-bounded-sessions). */
function interrogate(c: Command): ApplicationResult {
  const { bytes, a } = c;
  const qoi = a.objects[0]!.qualifier ?? 0;
  if (a.objects[0]!.ioa !== 0) return { replies: [mirror(bytes, Cot.UNKNOWN_IOA, true)], refusal: 'unknownIoa' };
  if (qoi < QOI_STATION || qoi > QOI_LAST_GROUP) return { replies: [mirror(bytes, Cot.ACTIVATION_CON, true)] };
  if (c.interrogating) return { replies: [mirror(bytes, Cot.ACTIVATION_CON, true)], refusal: 'interrogationRunning' };
  return { replies: [], interrogation: interrogationAnswer(c, qoi) };
}

function read({ bytes, a, handlers }: Command): ApplicationResult {
  const answer = handlers.onRead(a.commonAddress, a.objects[0]!.ioa, a.originator);
  return answer ? { replies: [answer] } : { replies: [mirror(bytes, Cot.UNKNOWN_IOA, true)], refusal: 'unknownIoa' };
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

/** `interrogating`: an interrogation's answer is still being sent on this connection. */
export function handleAsdu(bytes: Uint8Array, handlers: StationHandlers, interrogating = false): ApplicationResult {
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
  const served = handlers.commonAddresses();
  if (!global && !served.includes(a.commonAddress)) return { replies: [mirror(bytes, Cot.UNKNOWN_CA, true)], refusal: 'unknownCommonAddress' };
  if (a.cause !== handling.accepts) return { replies: [mirror(bytes, Cot.UNKNOWN_COT, true)], refusal: 'unknownCause' };
  return handling.handle({ bytes, a, handlers, global, targets: global ? served : [a.commonAddress], interrogating });
}
