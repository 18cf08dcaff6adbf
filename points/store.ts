// Postgres reads for the outstations (DNP3 and IEC 104): slot assignment and device snapshots. SQL only; each feed decides when.
// The table keeps its first name, dnp3_slots: the slots are the protocol-neutral point model's (points/banks.ts).
import type pg from 'pg';
import { withTransaction } from '../db/transaction.js';
import type { DeviceSnapshot } from './device-points.js';
import { POWER_LINES_WITHOUT_SLOT } from './power-lines.js';

/** The organisation's ($1) devices without a slot, deleted ones too (a slot is never reused), alias `d`. */
const DEVICES_WITHOUT_SLOT = `device_information d
  where d."OrganizationID" = $1
    and not exists (select 1 from dnp3_slots s where s."OrganizationID" = $1 and s."IMEINumber" = d."IMEINumber")`;

/** Gives every device of the organisation without a slot the next free ones (in DeviceID order). */
export async function assignSlots(pool: pg.Pool, organizationId: string): Promise<void> {
  await withTransaction(pool, async (client) => {
    // Concurrent outstation processes must not hand out the same slot twice.
    await client.query(`select pg_advisory_xact_lock(hashtext('dnp3_slots:' || $1))`, [organizationId]);
    await client.query(
      `insert into dnp3_slots ("OrganizationID", slot, "IMEINumber")
       select $1, coalesce((select max(slot) from dnp3_slots where "OrganizationID" = $1), -1)
                  + row_number() over (order by d."DeviceID"), d."IMEINumber"
         from ${DEVICES_WITHOUT_SLOT}`,
      [organizationId],
    );
  });
}

export interface Watermark { record: number; event: number }

const SNAPSHOT = `
  select s.slot, s."IMEINumber" as imei, d."Real_Name" as name,
         r."RecordID", r."CreatedDate", r."TestFaultID", r."date", r."ActualOngoingFault", r."BatteryOrLine", r."AverageCurrent1m", r."PrefaultCurrent",
         r."PeakCurrent24h", r."AverageCurrent1h", r."BatteryMCU", r."Temperature",
         e."FaultCurrent", e."EventTimestamp", c.expected_interval_s
    from dnp3_slots s
    join device_information d on d."IMEINumber" = s."IMEINumber" and d."OrganizationID" = s."OrganizationID" and d.deleted_at is null
    left join lateral (select * from device_records x where x."IMEINumber" = s."IMEINumber" and x."date" >= d."OrganizationSince"
                        order by x."date" desc limit 1) r on true
    left join lateral (select "FaultCurrent", "EventTimestamp" from event_records y
                        where y."IMEINumber" = s."IMEINumber" and y."FaultCurrent" is not null and y."PacketTimestamp" >= d."OrganizationSince"
                        order by y."EventTimestamp" desc limit 1) e on true
    left join checkin_clock c on c."IMEINumber" = s."IMEINumber"
   where s."OrganizationID" = $1`;

interface Row {
  RecordID: string | null; CreatedDate: Date | null; TestFaultID: string | null;
  slot: number; imei: string; name: string | null; date: Date | null; ActualOngoingFault: number | null; BatteryOrLine: number | null;
  AverageCurrent1m: number | null; PrefaultCurrent: number | null; PeakCurrent24h: number | null; AverageCurrent1h: number | null;
  BatteryMCU: number | null; Temperature: number | null; FaultCurrent: number | null; EventTimestamp: Date | null;
  expected_interval_s: number | null;
}

/** The stored record a snapshot shows: what caused the events it makes (e.g. dnp3/outstation/database.ts EventOrigin). */
export interface SnapshotRecord { id: number; storedAtMs: number; testFaultId: number | null }

export interface StoredSnapshot extends DeviceSnapshot {
  record: SnapshotRecord | null;
}

function toSnapshot(r: Row): StoredSnapshot {
  return {
    record: r.RecordID === null ? null : { id: Number(r.RecordID), storedAtMs: r.CreatedDate?.getTime() ?? 0, testFaultId: r.TestFaultID === null ? null : Number(r.TestFaultID) },
    imei: r.imei, slot: r.slot, name: r.name, date: r.date?.getTime() ?? null, expectedIntervalS: r.expected_interval_s,
    actualOngoingFault: r.ActualOngoingFault, batteryOrLine: r.BatteryOrLine, averageCurrent1m: r.AverageCurrent1m,
    prefaultCurrent: r.PrefaultCurrent, faultCurrent: r.FaultCurrent, faultTime: r.EventTimestamp?.getTime() ?? null,
    peakCurrent24h: r.PeakCurrent24h, averageCurrent1h: r.AverageCurrent1h, batteryMcu: r.BatteryMCU, temperature: r.Temperature,
  };
}

/** Snapshots of the organisation's devices; with `since`, only devices with records or events after it. */
export async function loadSnapshots(pool: pg.Pool, organizationId: string, since?: Watermark): Promise<StoredSnapshot[]> {
  if (!since) return (await pool.query<Row>(SNAPSHOT, [organizationId])).rows.map(toSnapshot);
  const { rows } = await pool.query<Row>(
    `${SNAPSHOT} and s."IMEINumber" in (select "IMEINumber" from device_records where "RecordID" > $2
                                         union select "IMEINumber" from event_records where "Event_Record_ID" > $3)`,
    [organizationId, since.record, since.event],
  );
  return rows.map(toSnapshot);
}

/**
 * What a feed round needs before it reads snapshots, in one statement: the watermark, the highest slot, and
 * whether a device or power line is waiting for a slot (then the round assigns them and reads the slot again).
 */
export async function feedState(pool: pg.Pool, organizationId: string): Promise<{ watermark: Watermark; maxSlot: number; unslotted: boolean }> {
  const { rows } = await pool.query<{ record: string | null; event: string | null; max_slot: number | null; unslotted: boolean }>(
    `select (select max("RecordID") from device_records) as record, (select max("Event_Record_ID") from event_records) as event,
            (select max(slot) from dnp3_slots where "OrganizationID" = $1) as max_slot,
            exists (select 1 from ${DEVICES_WITHOUT_SLOT}) or exists (select 1 from ${POWER_LINES_WITHOUT_SLOT}) as unslotted`,
    [organizationId],
  );
  const r = rows[0]!;
  return { watermark: { record: Number(r.record ?? 0), event: Number(r.event ?? 0) }, maxSlot: r.max_slot ?? -1, unslotted: r.unslotted };
}

export async function maxSlot(pool: pg.Pool, organizationId: string): Promise<number> {
  const { rows } = await pool.query<{ m: number | null }>('select max(slot) as m from dnp3_slots where "OrganizationID" = $1', [organizationId]);
  return rows[0]?.m ?? -1;
}

/**
 * The organisation's slots with their devices, those for which `reach` holds: a condition on device_information
 * `d` with its values (the API passes api/device-records/reach.ts's; by default every non-deleted device). A
 * slot whose device was deleted or moved to another organisation keeps its number but is not listed.
 */
export async function slotDevices(pool: pg.Pool, organizationId: string, reach: { sql: string; values: unknown[] } = { sql: 'd.deleted_at is null', values: [] }): Promise<{ imei: string; slot: number; name: string | null }[]> {
  const { rows } = await pool.query<{ imei: string; slot: number; name: string | null }>(
    `select s."IMEINumber" as imei, s.slot, d."Real_Name" as name
       from dnp3_slots s join device_information d on d."IMEINumber" = s."IMEINumber" and d."OrganizationID" = s."OrganizationID"
      where s."OrganizationID" = $${reach.values.length + 1} and s."IMEINumber" is not null and ${reach.sql} order by s.slot`,
    [...reach.values, organizationId],
  );
  return rows;
}
