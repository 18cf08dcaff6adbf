// Per power line incident points (docs/decisions.md#feeder-incidents): a power line with feeder topology takes
// a slot like a device (dnp3_slots."PowerLineID", never reused), and its binaries and analogs say whether an
// incident is open on it and where. The section is told as a number a master can map through the point map:
// the slot + 1 of the indicator at the upstream end of the faulted section (0: none located). Protocol-neutral
// (points/device-points.ts); dnp3/data/power-lines.ts and the 104 point map encode the samples.
import type pg from 'pg';
import { withTransaction } from '../db/transaction.js';
import type { FaultedSection } from '../domain/faulted-section.js';
import { coveredPhases } from '../domain/feeder-topology.js';
import type { NeutralPoint, PointSample } from './device-points.js';

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

export const LINE_BINARY: readonly (NeutralPoint & { test: (l: PowerLineSnapshot) => boolean })[] = [
  { k: 0, name: 'incident open', test: (l) => l.open !== null },
  { k: 1, name: 'incident located', test: (l) => l.open?.status === 'located' },
  { k: 2, name: 'permanent incident', test: (l) => l.open?.kind === 'permanent' },
  { k: 3, name: 'momentary incident', test: (l) => l.open?.kind === 'momentary' },
];

// Section numbers and counts are identifiers, not measurements: deadband 0, every change is an event.
export const LINE_ANALOG: readonly (NeutralPoint & { value: (l: PowerLineSnapshot) => number })[] = [
  { k: 0, name: 'faulted section (slot + 1 of the indicator at its upstream end; 0 none)', deadband: 0, value: (l) => sectionValue(l, null) },
  { k: 1, name: 'faulted section on phase A (slot + 1; 0 none)', deadband: 0, value: (l) => sectionValue(l, 'A') },
  { k: 2, name: 'faulted section on phase B (slot + 1; 0 none)', deadband: 0, value: (l) => sectionValue(l, 'B') },
  { k: 3, name: 'faulted section on phase C (slot + 1; 0 none)', deadband: 0, value: (l) => sectionValue(l, 'C') },
  { k: 4, name: 'tripped indicators in the open incident', deadband: 0, value: (l) => l.open?.devices ?? 0 },
  { k: 5, name: 'open incidents', deadband: 0, value: (l) => l.openCount },
];

/** How a power line is named in point maps and profiles. */
export const powerLineLabel = (l: Pick<PowerLineSnapshot, 'powerLineId' | 'name'>): string => `power line ${l.name ?? l.powerLineId} (${l.powerLineId})`;

/** Samples of one power line: stamped with the incident's time (open or located), else now. */
export function powerLineSamples(l: PowerLineSnapshot, nowMs: number, analogOnly = false): PointSample[] {
  const time = l.open?.at ?? nowMs;
  const base = { slot: l.slot, time, reported: true, offline: false };
  return [
    ...(analogOnly ? [] : LINE_BINARY.map((p): PointSample => ({ ...base, kind: 'binary', k: p.k, value: p.test(l) ? 1 : 0 }))),
    ...LINE_ANALOG.map((p): PointSample => ({ ...base, kind: 'analog', k: p.k, value: p.value(l) })),
  ];
}

/** The organisation's ($1) power lines with feeder topology (a device with a phase on it) and no slot yet, alias `p`. */
export const POWER_LINES_WITHOUT_SLOT = `power_lines p
  where p."OrganizationID" = $1 and p.deleted_at is null
    and exists (select 1 from device_information d where d."PowerLineID" = p."Id" and d."Phase" is not null and d.deleted_at is null)
    and not exists (select 1 from dnp3_slots s where s."OrganizationID" = $1 and s."PowerLineID" = p."Id")`;

/** Gives every power line of the organisation with feeder topology a slot (after the devices' own). */
export async function assignPowerLineSlots(pool: pg.Pool, organizationId: string): Promise<void> {
  await withTransaction(pool, async (client) => {
    await client.query(`select pg_advisory_xact_lock(hashtext('dnp3_slots:' || $1))`, [organizationId]);
    await client.query(
      `insert into dnp3_slots ("OrganizationID", slot, "PowerLineID")
       select $1, coalesce((select max(slot) from dnp3_slots where "OrganizationID" = $1), -1) + row_number() over (order by p."Id"), p."Id"
         from ${POWER_LINES_WITHOUT_SLOT}`,
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

export async function slotPowerLines(pool: pg.Pool, organizationId: string): Promise<{ powerLineId: string; name: string | null; slot: number }[]> {
  const { rows } = await pool.query<{ powerLineId: string; name: string | null; slot: number }>(
    `select s."PowerLineID" as "powerLineId", p.name, s.slot from dnp3_slots s join power_lines p on p."Id" = s."PowerLineID"
      where s."OrganizationID" = $1 and p.deleted_at is null order by s.slot`,
    [organizationId],
  );
  return rows;
}
