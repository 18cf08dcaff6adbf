// What an organisation's point map lists, before any protocol encodes it (docs/decisions.md#one-point-model):
// its slotted devices in a caller's reach, its power lines with incident points and the highest slot ever given.
// Read by the DNP3 point map and device profile (dnp3/data/organisation-map.ts) and the IEC 104 point map
// (iec104/organisation-map.ts), so both protocols list the same slots.
import { spreadsheetSafe } from '../plumbing/csv.js';
import type pg from 'pg';
import { assignPowerLineSlots, slotPowerLines } from './power-lines.js';
import { assignSlots, maxSlot, slotDevices } from './store.js';

export interface OrganisationSlots {
  devices: { imei: string; slot: number; name: string | null }[];
  lines: { powerLineId: string; name: string | null; slot: number }[];
  /** The highest slot ever given, deleted devices included: the stations size their banks by it. */
  maxSlot: number;
}

/** `devices`: which of the organisation's devices to list (a caller's reach); default every one not deleted. */
export async function organisationSlots(pool: pg.Pool, org: string, devices?: { sql: string; values: unknown[] }): Promise<OrganisationSlots> {
  // Slots are assigned here too, so a map is complete before any station has ever run.
  await assignSlots(pool, org);
  await assignPowerLineSlots(pool, org);
  return { devices: await slotDevices(pool, org, devices), lines: await slotPowerLines(pool, org), maxSlot: await maxSlot(pool, org) };
}

/** A spreadsheet-safe CSV of `rows` (CRLF lines): engineers open point maps in spreadsheets. */
export function pointMapCsvOf<R>(columns: readonly (keyof R & string)[], rows: readonly R[]): string {
  return [columns.join(','), ...rows.map((r) => columns.map((c) => csvCell(r[c])).join(','))].join('\r\n') + '\r\n';
}

function csvCell(v: unknown): string {
  const s = v === null || v === undefined ? '' : String(v);
  const safe = spreadsheetSafe(s);
  return /[",\n\r']/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}
