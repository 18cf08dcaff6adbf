// The IEC 104 encoding of the point model (points/, docs/decisions.md#one-point-model and #iec-104-outstation):
// bank b is common address `commonAddress + b`; within it a slot's single points are IOA 1 + 8s + k and its
// short floats IOA 100001 + 8s + k (s the local slot), the heartbeat IOA 100000. Quality: IV when the device
// did not report the value, NT while it is offline. Pure: samples in, information objects out.
import { bankOf, localSlot } from '../../points/banks.js';
import type { PointKind, PointSample } from '../../points/device-points.js';
import { Quality, TypeId } from '../asdu/types.js';

export const FLOAT_BASE_IOA = 100_000;
export const HEARTBEAT_IOA = FLOAT_BASE_IOA;
/** Common address 0xFFFF is global; 0 is not used (IEC 60870-5-104 clause 7.2.4). */
export const MAX_COMMON_ADDRESS = 0xfffe;

export const singleIoa = (local: number, k: number): number => 1 + 8 * local + k;
export const floatIoa = (local: number, k: number): number => FLOAT_BASE_IOA + 1 + 8 * local + k;

export function bankCommonAddress(commonAddress: number, bank: number): number {
  const ca = commonAddress + bank;
  if (commonAddress < 1 || ca > MAX_COMMON_ADDRESS) throw new RangeError(`bank ${bank} would need common address ${ca}, outside 1..${MAX_COMMON_ADDRESS}`);
  return ca;
}

/** One point as the station holds it. */
export interface StationPoint {
  kind: PointKind;
  ioa: number;
  value: number;
  /** Quality bits (asdu/types.ts Quality). */
  quality: number;
  /** Device time (ms). */
  time: number;
}

/** The ASDU types of a kind: without time in interrogation and read answers, with CP56Time2a when spontaneous. */
export const TYPES: Readonly<Record<PointKind, { static: number; event: number }>> = {
  binary: { static: TypeId.M_SP_NA_1, event: TypeId.M_SP_TB_1 },
  analog: { static: TypeId.M_ME_NC_1, event: TypeId.M_ME_TF_1 },
};

/** Interrogation groups (QOI 21..36 = group 1..16): the group whose interrogation answers a kind's points. */
export const INTERROGATION_GROUP: Readonly<Record<PointKind, number>> = { binary: 1, analog: 2 };

export function iec104Point(s: PointSample, commonAddress: number): { ca: number; point: StationPoint } {
  const local = localSlot(s.slot);
  return {
    ca: bankCommonAddress(commonAddress, bankOf(s.slot)),
    point: {
      kind: s.kind, ioa: s.kind === 'binary' ? singleIoa(local, s.k) : floatIoa(local, s.k), value: s.value, time: s.time,
      quality: (s.reported ? 0 : Quality.IV) | (s.offline ? Quality.NT : 0),
    },
  };
}
