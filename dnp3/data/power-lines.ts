// Per power line incident points (docs/decisions.md#feeder-incidents): a power line with feeder topology takes
// a DNP3 slot like a device (dnp3_slots."PowerLineID", never reused), and its 8 binaries and 8 analogs say
// whether an incident is open on it and where. The section is told as a number a master can map through the
// point map: the slot + 1 of the indicator at the upstream end of the faulted section (0: none located).
import type pg from 'pg';
import { withTransaction } from '../../db/transaction.js';
import type { FaultedSection } from '../../domain/faulted-section.js';
import { coveredPhases } from '../../domain/feeder-topology.js';
import { Flags } from '../objects/table.js';
import type { Outstation } from '../outstation/outstation.js';
import {
  analogIndex, bankAddress, bankOf, binaryIndex, localSlot, type PointDefinition, type PointMapRow, type PointUpdate,
} from './point-map.js';

/** The state of one power line's incidents, as its points show it. */
export interface PowerLineSnapshot {
  powerLineId: string;
  name: string | null;
  slot: number;
  /** The newest incident that is open or located, if any. */
  open: { status: 'open' | 'located'; kind: string; sections: FaultedSection[]; devices: number; at: number } | null;
  openCount: number;
  /** Slots of the line's indicators, to turn a section's from-indicator into a number. */
  slotOf: ReadonlyMap<string, number>;
}

const sectionValue = (l: PowerLineSnapshot, phase: 'A' | 'B' | 'C' | null): number => {
  const s = l.open?.sections.find((x) => phase === null || coveredPhases(x.phase).includes(phase));
  const slot = s ? l.slotOf.get(s.from.imei) : undefined;
  return slot === undefined ? 0 : slot + 1;
};

export const LINE_BINARY_POINTS: readonly (PointDefinition & { test: (l: PowerLineSnapshot) => boolean })[] = [
  { k: 0, name: 'incident open', eventClass: 1, test: (l) => l.open !== null },
  { k: 1, name: 'incident located', eventClass: 1, test: (l) => l.open?.status === 'located' },
  { k: 2, name: 'permanent incident', eventClass: 1, test: (l) => l.open?.kind === 'permanent' },
  { k: 3, name: 'momentary incident', eventClass: 1, test: (l) => l.open?.kind === 'momentary' },
];

export const LINE_ANALOG_POINTS: readonly (PointDefinition & { value: (l: PowerLineSnapshot) => number })[] = [
  { k: 0, name: 'faulted section (slot + 1 of the indicator at its upstream end; 0 none)', eventClass: 2, deadband: 0, value: (l) => sectionValue(l, null) },
  { k: 1, name: 'faulted section on phase A (slot + 1; 0 none)', eventClass: 2, deadband: 0, value: (l) => sectionValue(l, 'A') },
  { k: 2, name: 'faulted section on phase B (slot + 1; 0 none)', eventClass: 2, deadband: 0, value: (l) => sectionValue(l, 'B') },
  { k: 3, name: 'faulted section on phase C (slot + 1; 0 none)', eventClass: 2, deadband: 0, value: (l) => sectionValue(l, 'C') },
  { k: 4, name: 'tripped indicators in the open incident', eventClass: 2, deadband: 0, value: (l) => l.open?.devices ?? 0 },
  { k: 5, name: 'open incidents', eventClass: 2, deadband: 0, value: (l) => l.openCount },
];

/** Point values of one power line, indexed within its bank. */
export function powerLinePoints(l: PowerLineSnapshot, nowMs: number, analogOnly = false): PointUpdate[] {
  const local = localSlot(l.slot);
  const time = l.open?.at ?? nowMs;
  const out: PointUpdate[] = [];
  if (!analogOnly) for (const p of LINE_BINARY_POINTS) out.push({ type: 'binary', index: binaryIndex(local, p.k), value: { flags: Flags.ONLINE, value: p.test(l) ? 1 : 0, time } });
  for (const p of LINE_ANALOG_POINTS) out.push({ type: 'analog', index: analogIndex(local, p.k), value: { flags: Flags.ONLINE, value: p.value(l), time } });
  return out;
}

/** Gives every power line of the organisation with feeder topology a slot (after the devices' own). */
export async function assignPowerLineSlots(pool: pg.Pool, organizationId: string): Promise<void> {
  await withTransaction(pool, async (client) => {
    await client.query(`select pg_advisory_xact_lock(hashtext('dnp3_slots:' || $1))`, [organizationId]);
    await client.query(
      `insert into dnp3_slots ("OrganizationID", slot, "PowerLineID")
       select $1, coalesce((select max(slot) from dnp3_slots where "OrganizationID" = $1), -1) + row_number() over (order by p."Id"), p."Id"
         from power_lines p
        where p."OrganizationID" = $1 and p.deleted_at is null
          and exists (select 1 from device_information d where d."PowerLineID" = p."Id" and d."Phase" is not null and d.deleted_at is null)
          and not exists (select 1 from dnp3_slots s where s."OrganizationID" = $1 and s."PowerLineID" = p."Id")`,
      [organizationId],
    );
  });
}

export async function loadPowerLines(pool: pg.Pool, organizationId: string): Promise<PowerLineSnapshot[]> {
  const { rows } = await pool.query<{ id: string; name: string | null; slot: number; open: PowerLineSnapshot['open'] & { at: string } | null; n: number; slots: Record<string, number> | null }>(
    `select p."Id" as id, p.name, s.slot,
            (select json_build_object('status', i.status, 'kind', i.kind, 'sections', i.sections, 'at', coalesce(i.located_at, i.opened_at),
                                      'devices', (select count(*) from incident_devices x where x.incident_id = i.id))
               from incidents i where i."PowerLineID" = p."Id" and i.status in ('open', 'located') order by i.id desc limit 1) as open,
            (select count(*)::int from incidents i where i."PowerLineID" = p."Id" and i.status in ('open', 'located')) as n,
            (select json_object_agg(ds."IMEINumber", ds.slot) from dnp3_slots ds join device_information d on d."IMEINumber" = ds."IMEINumber"
              where ds."OrganizationID" = $1 and d."PowerLineID" = p."Id") as slots
       from dnp3_slots s join power_lines p on p."Id" = s."PowerLineID"
      where s."OrganizationID" = $1 and s."PowerLineID" is not null and p.deleted_at is null`,
    [organizationId],
  );
  return rows.map((r) => ({
    powerLineId: r.id, name: r.name, slot: r.slot, openCount: r.n, slotOf: new Map(Object.entries(r.slots ?? {})),
    open: r.open ? { ...r.open, at: Date.parse(r.open.at) } : null,
  }));
}

/** Stores every power line's values in its bank's outstation; returns how many events that produced. */
export function applyPowerLines(banks: readonly Outstation[], lines: readonly PowerLineSnapshot[], nowMs: number, analogOnly: boolean): number {
  let events = 0;
  for (const l of lines) {
    const o = banks[bankOf(l.slot)];
    if (!o) continue;
    // Section numbers are identifiers, not measurements: every change is an event.
    for (const p of LINE_ANALOG_POINTS) o.db.configure('analog', analogIndex(localSlot(l.slot), p.k), { eventClass: 2, deadband: 0 });
    for (const u of powerLinePoints(l, nowMs, analogOnly)) if (o.update(u.type, u.index, u.value)) events++;
  }
  return events;
}

/** The point map rows of the power lines (sorted with the devices' rows by the caller). */
export function powerLinePointRows(lines: readonly Pick<PowerLineSnapshot, 'powerLineId' | 'name' | 'slot'>[], opts: { analogOnly?: boolean; outstationAddress?: number } = {}): PointMapRow[] {
  const base = opts.outstationAddress ?? 10;
  return lines.flatMap((l) => {
    const where = { bank: bankOf(l.slot), outstationAddress: bankAddress(base, bankOf(l.slot)), slot: l.slot, imei: null, deviceName: `power line ${l.name ?? l.powerLineId} (${l.powerLineId})` };
    const local = localSlot(l.slot);
    return [
      ...(opts.analogOnly ? [] : LINE_BINARY_POINTS.map((p): PointMapRow => ({ ...where, type: 'binary', index: binaryIndex(local, p.k), point: `${p.name} on ${where.deviceName}`, eventClass: p.eventClass, deadband: null, unit: null, staticVariation: 'g1v2', eventVariation: 'g2v2' }))),
      ...LINE_ANALOG_POINTS.map((p): PointMapRow => ({ ...where, type: 'analog', index: analogIndex(local, p.k), point: `${p.name} on ${where.deviceName}`, eventClass: p.eventClass, deadband: 0, unit: null, staticVariation: 'g30v5', eventVariation: 'g32v7' })),
    ];
  });
}

export async function slotPowerLines(pool: pg.Pool, organizationId: string): Promise<{ powerLineId: string; name: string | null; slot: number }[]> {
  const { rows } = await pool.query<{ powerLineId: string; name: string | null; slot: number }>(
    `select s."PowerLineID" as "powerLineId", p.name, s.slot from dnp3_slots s join power_lines p on p."Id" = s."PowerLineID"
      where s."OrganizationID" = $1 and p.deleted_at is null order by s.slot`,
    [organizationId],
  );
  return rows;
}
