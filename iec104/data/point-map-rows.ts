// The IEC 104 point map: every point of the protocol-neutral model (points/) as a master configures it, at the
// addresses the station serves (point-map.ts: bankCommonAddress, singleIoa, floatIoa, HEARTBEAT_IOA) with the
// types it sends (TYPES) and the interrogation group answering it (INTERROGATION_GROUP). Pure: slots in, rows
// out. Served by GET /api/iec104/pointMap (api/iec104/point-map.ts), as JSON or CSV.
import { bankCount, bankOf, BANK_SLOTS, lastLocalSlot, localSlot } from '../../points/banks.js';
import { DEVICE_ANALOG_POINTS, DEVICE_BINARY_POINTS, type NeutralPoint, type PointKind } from '../../points/device-points.js';
import { pointMapCsvOf, type OrganisationSlots } from '../../points/organisation-map.js';
import { LINE_ANALOG, LINE_BINARY, powerLineLabel } from '../../points/power-lines.js';
import { typeSpec } from '../asdu/types.js';
import { bankCommonAddress, floatIoa, HEARTBEAT_IOA, INTERROGATION_GROUP, singleIoa, TYPES } from './point-map.js';

export interface Iec104PointMapRow {
  bank: number;
  commonAddress: number;
  ioa: number;
  kind: PointKind;
  /** The type in interrogation and read answers (no time). */
  interrogationType: string;
  /** The type of spontaneous events (CP56Time2a); null: the point raises none (the heartbeat). */
  spontaneousType: string | null;
  /** The interrogation group answering the point (QOI 20 + group); the station interrogation answers every one. */
  group: number;
  point: string;
  slot: number | null;
  imei: string | null;
  deviceName: string | null;
  /** Change that makes an event (analogs); null for single points, which report every change. */
  deadband: number | null;
  unit: string | null;
}

export interface Iec104PointMapBank {
  bank: number;
  commonAddress: number;
  firstSlot: number;
  lastSlot: number;
}

const typeName = (id: number): string => typeSpec(id)!.name;

function row(kind: PointKind, where: Pick<Iec104PointMapRow, 'bank' | 'commonAddress' | 'slot' | 'imei' | 'deviceName'>, ioa: number, p: NeutralPoint, point = p.name): Iec104PointMapRow {
  return {
    ...where, ioa, kind, interrogationType: typeName(TYPES[kind].static), spontaneousType: typeName(TYPES[kind].event), group: INTERROGATION_GROUP[kind],
    point, deadband: kind === 'analog' ? p.deadband ?? 0 : null, unit: p.unit ?? null,
  };
}

/** Rows of one slot's points of both kinds, single points first (none when analog only). */
function slotRows(base: number, slot: number, who: Pick<Iec104PointMapRow, 'imei' | 'deviceName'>, points: { binary: readonly NeutralPoint[]; analog: readonly NeutralPoint[] }, analogOnly: boolean, suffix = ''): Iec104PointMapRow[] {
  const bank = bankOf(slot);
  const where = { bank, commonAddress: bankCommonAddress(base, bank), slot, ...who };
  const local = localSlot(slot);
  return [
    ...(analogOnly ? [] : points.binary.map((p) => row('binary', where, singleIoa(local, p.k), p, p.name + suffix))),
    ...points.analog.map((p) => row('analog', where, floatIoa(local, p.k), p, p.name + suffix)),
  ];
}

/** The banks (common addresses) an organisation's station serves, by its highest slot ever given. */
export function iec104PointMapBanks(maxSlot: number, commonAddress: number): Iec104PointMapBank[] {
  return Array.from({ length: bankCount(maxSlot) }, (_, bank) => ({
    bank, commonAddress: bankCommonAddress(commonAddress, bank), firstSlot: bank * BANK_SLOTS, lastSlot: bank * BANK_SLOTS + lastLocalSlot(bank, maxSlot),
  }));
}

/** Every point, sorted by common address then IOA: a heartbeat per bank, the devices', the power lines'. */
export function iec104PointMapRows(slots: OrganisationSlots, opts: { commonAddress: number; analogOnly: boolean }): Iec104PointMapRow[] {
  const { commonAddress: base, analogOnly } = opts;
  const maxSlot = Math.max(slots.maxSlot, ...slots.devices.map((d) => d.slot), ...slots.lines.map((l) => l.slot));
  const rows: Iec104PointMapRow[] = iec104PointMapBanks(maxSlot, base).map((b) => ({
    ...row('analog', { bank: b.bank, commonAddress: b.commonAddress, slot: null, imei: null, deviceName: null }, HEARTBEAT_IOA, { k: 0, name: 'heartbeat (0..100, +1 per second)' }),
    spontaneousType: null, deadband: null,
  }));
  for (const d of slots.devices) rows.push(...slotRows(base, d.slot, { imei: d.imei, deviceName: d.name }, { binary: DEVICE_BINARY_POINTS, analog: DEVICE_ANALOG_POINTS }, analogOnly));
  for (const l of slots.lines) {
    const label = powerLineLabel(l);
    rows.push(...slotRows(base, l.slot, { imei: null, deviceName: label }, { binary: LINE_BINARY, analog: LINE_ANALOG }, analogOnly, ` on ${label}`));
  }
  return rows.sort((a, b) => a.commonAddress - b.commonAddress || a.ioa - b.ioa);
}

const CSV_COLUMNS = ['commonAddress', 'bank', 'ioa', 'kind', 'interrogationType', 'spontaneousType', 'group', 'slot', 'imei', 'deviceName', 'point', 'deadband', 'unit'] as const;

export const iec104PointMapCsv = (rows: readonly Iec104PointMapRow[]): string => pointMapCsvOf<Iec104PointMapRow>(CSV_COLUMNS, rows);
