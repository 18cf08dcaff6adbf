// Device data generated inside PostgreSQL, for the storage tests and bench/storage.bench.ts: check-ins with
// events, DM1 events and currents in the shipped fixtures' proportions (12 check-ins: 9 events, 1 DM1 event,
// 12 currents rows), spread over whole UTC months, deterministic for the same arguments (the events' identities
// too, whatever the partitions: they are numbered in RecordID order). Works on the schema
// before and after migration 0008 (plain INSERTs through the tables).
import type pg from 'pg';
import { monthBounds } from '../domain/storage-months.js';

export interface GeneratedData {
  /** IMEIs `<prefix><8 digits>`, one per device. */
  prefix: string;
  devices: number;
  /** Check-ins to write, numbered from `first` (so a second call adds to a first). */
  first?: number;
  count: number;
  /** Months `YYYY-MM` the check-ins spread over, uniformly. */
  months: string[];
}

/**
 * An organisation with two power lines `<org>-F12`, `<org>-F7` and two groups `<org>-east`, `<org>-west`, in
 * plain SQL: the import (reference-data/) writes columns of later migrations, so it cannot seed an old schema.
 */
export async function seedOrganization(pool: pg.Pool, org: string): Promise<void> {
  await pool.query(`insert into organizations ("OrganizationID", name) values ($1, $1) on conflict do nothing`, [org]);
  await pool.query(`insert into power_lines ("Id", "OrganizationID", name) values ($1 || '-F12', $1, 'F12'), ($1 || '-F7', $1, 'F7') on conflict do nothing`, [org]);
  await pool.query(`insert into groups ("GroupID", "OrganizationID", name) values ($1 || '-east', $1, 'east'), ($1 || '-west', $1, 'west') on conflict do nothing`, [org]);
}

/** Registers `devices` devices in `org`, half of them in `groupA`, half in `groupB`. */
export async function registerDevices(pool: pg.Pool, { prefix, devices, org, powerLines, groups }: { prefix: string; devices: number; org: string; powerLines: [string, string]; groups: [string, string] }): Promise<void> {
  await pool.query(`insert into device_information ("IMEINumber", "Real_Name", "Lat", "Long", "OrganizationID", "PowerLineID", "serialNumber")
    select $1 || lpad(g::text, 8, '0'), 'Generated pole ' || g, 41 + g / 100000.0, -87.6, $3, case when g % 2 = 0 then $4 else $5 end, 'SN-' || $1 || g
      from generate_series(1, $2::int) g on conflict do nothing`, [prefix, devices, org, powerLines[0], powerLines[1]]);
  await pool.query(`insert into group_device_links ("DeviceID", "GroupID")
    select "DeviceID", case when "DeviceID" % 2 = 0 then $2 else $3 end from device_information where "IMEINumber" like $1 || '%'
    on conflict do nothing`, [prefix, groups[0], groups[1]]);
}

/**
 * Writes check-ins number first..first+count-1: check-in i belongs to device i % devices and falls in month
 * (i / devices) % months at a pseudo-random second of it. Returns the rows written per table.
 */
export async function generateDeviceData(pool: pg.Pool, { prefix, devices, first = 0, count, months }: GeneratedData): Promise<Record<string, number>> {
  const starts = months.map((m) => new Date(monthBounds(m).fromMs));
  const lengths = months.map((m) => { const b = monthBounds(m); return (b.untilMs - b.fromMs) / 1000; });
  const params = [prefix, devices, first, count, starts, lengths];
  // The rows this call writes get RecordIDs above every one before it (a sequence): the statements after the
  // first read them by that key (a range of each partition's primary key) instead of scanning every check-in,
  // which made each million of a 20M load slower than the one before.
  const before = (await pool.query<{ before: number }>('select coalesce(max("RecordID"), 0)::bigint as before from device_records')).rows[0]!.before;
  // The check-in's time: month (i / devices) % months, second (i * 7919) % month length, plus the device number
  // as milliseconds so two check-ins of one device never share a date.
  const records = await pool.query(`
    insert into device_records ("IMEINumber", model, version, "date", rssi, "State", "FaultType", "BatteryOrLine", "BatteryMCU",
      "AverageCurrent1m", "PrefaultCurrent", "Ongoing_fault", "ActualOngoingFault", "ReportedOngoingFault", "CurrentName", "CurrentLat", "CurrentLong",
      "Temperature", source_message_id)
    select $1 || lpad((1 + i % $2::int)::text, 8, '0'), 'FCI-3000', '4.2.1',
           ($5::timestamptz[])[1 + (i / $2::int) % cardinality($5::timestamptz[])]
             + ((i::bigint * 7919) % ($6::int[])[1 + (i / $2::int) % cardinality($6::int[])]) * interval '1 second'
             + (i % $2::int) * interval '1 millisecond',
           -70, 0, 0, 0, 3.6, 100 + i % 50, 90, (array[0,0,0,2,4,6,10,11])[1 + i % 8], (array[0,0,0,2,4,6,10,11])[1 + i % 8], 0,
           'Generated pole ' || (1 + i % $2::int), 41, -87.6, 20, 'gen-' || i
      from generate_series($3::bigint, $3::bigint + $4::bigint - 1) i
    on conflict do nothing`, params);
  const seq = `(case when r.source_message_id like 'gen-%' then substr(r.source_message_id, 5)::bigint end)`;
  const mine = `r."RecordID" > $3::bigint and ${seq} between $1::bigint and $1::bigint + $2::bigint - 1`;
  const range = [first, count, before];
  // 3 of 4 check-ins carry an event; 1 of 12 a DM1 event (round + device number a multiple of 12, so every
  // month and every group of devices has some); every one a currents row.
  const events = await pool.query(`
    insert into event_records ("EventID", "EventTimestamp", "EventType", "PrefaultCurrent", "FaultCurrent", "RecoverCurrent",
      "PacketTimestamp", "IMEINumber", "DeviceRecordID", "ReportedEventTimestamp")
    select r."RecordID", r."date" - interval '10 seconds',
           (array['PFault','TFault','Current Reset','SOTF','Overcurrent','Fault Like','Fault <50','Heartbeat'])[1 + r."RecordID" % 8],
           40, 400, 10, r."date", r."IMEINumber", r."RecordID", r."date" - interval '10 seconds'
      from device_records r where ${mine} and ${seq} % 4 <> 0
     order by r."RecordID"
    on conflict do nothing`, range);
  const dm1 = await pool.query(`
    insert into dm1_event_records ("EventID", "EventTimestamp", "EventType", "PhaseAEvent", "PhaseBEvent", "PhaseCEvent",
      "PacketTimestamp", "IMEINumber", "DeviceRecordID", "ReportedEventTimestamp")
    select r."RecordID", r."date" - interval '5 seconds', 'FAULT_INITIAL', 'Fault', 'Normal', 'Normal', r."date", r."IMEINumber", r."RecordID", r."date" - interval '5 seconds'
      from device_records r where ${mine} and (${seq} / $4::int + ${seq} % $4::int) % 12 = 0
     order by r."RecordID"
    on conflict do nothing`, [...range, devices]);
  const currents = await pool.query(`
    insert into device_currents ("PacketTimestamp", "IMEINumber", "PeakCurrent", "PeakCurrentTimestamp",
      ${Array.from({ length: 24 }, (_, h) => `"AverageCurrentH${h}"`).join(', ')}, "CurrentName")
    select r."date", r."IMEINumber", 150 + r."RecordID" % 40, r."date" - interval '1 hour',
           ${Array.from({ length: 24 }, (_, h) => `${100 + h} + r."RecordID" % 7`).join(', ')}, r."CurrentName"
      from device_records r where ${mine}
    on conflict do nothing`, range);
  // What persist keeps per IMEI and per device as it stores check-ins (migration 0006, spec 6.1 step 8): the
  // newest of this call's rows, kept only where newer than the one already there (so the newest of all).
  await pool.query(`
    insert into device_latest ("IMEINumber", "RecordID", "date", "ActualOngoingFault", "BatteryOrLine")
    select distinct on ("IMEINumber") "IMEINumber", "RecordID", "date", "ActualOngoingFault", "BatteryOrLine"
      from device_records where "IMEINumber" like $1 || '%' and "RecordID" > $2::bigint order by "IMEINumber", "date" desc, "RecordID" desc
    on conflict ("IMEINumber") do update set "RecordID" = excluded."RecordID", "date" = excluded."date",
      "ActualOngoingFault" = excluded."ActualOngoingFault", "BatteryOrLine" = excluded."BatteryOrLine"
      where excluded."date" >= device_latest."date"`, [prefix, before]);
  await pool.query(`update device_information d set "LastCheckInTime" = l."date" from device_latest l
     where l."IMEINumber" = d."IMEINumber" and d."IMEINumber" like $1 || '%' and (d."LastCheckInTime" is null or d."LastCheckInTime" < l."date")`, [prefix]);
  return { device_records: records.rowCount ?? 0, event_records: events.rowCount ?? 0, dm1_event_records: dm1.rowCount ?? 0, device_currents: currents.rowCount ?? 0 };
}

export const DEVICE_DATA_TABLES = ['device_records', 'device_currents', 'event_records', 'dm1_event_records', 'model_change_alerts', 'device_latest', 'device_read_counts'] as const;

export type TableColumns = Record<string, string[]>;

/** The columns of each device-data table now: later migrations may add some, which a comparison leaves out. */
export async function deviceDataColumns(pool: pg.Pool): Promise<TableColumns> {
  const { rows } = await pool.query<{ table_name: string; column_name: string }>(
    `select table_name, column_name from information_schema.columns where table_schema = 'public' and table_name = any($1) order by table_name, ordinal_position`, [DEVICE_DATA_TABLES]);
  const out: TableColumns = {};
  for (const r of rows) (out[r.table_name] ??= []).push(r.column_name);
  return out;
}

/** Row count and a checksum (md5 over every row's text of `columns`, in key order) per table. */
export async function tableChecksums(pool: pg.Pool, columns?: TableColumns): Promise<Record<string, { rows: number; md5: string }>> {
  const cols = columns ?? await deviceDataColumns(pool);
  const keys: Record<string, string> = {
    device_records: '"RecordID"', device_currents: '"IMEINumber", "PacketTimestamp"', event_records: '"Event_Record_ID"',
    dm1_event_records: '"Event_Record_ID"', model_change_alerts: 'id', device_latest: '"IMEINumber"', device_read_counts: '"IMEINumber"',
  };
  const out: Record<string, { rows: number; md5: string }> = {};
  for (const table of DEVICE_DATA_TABLES) {
    const row = `row(${cols[table]!.map((c) => `t."${c}"`).join(', ')})::text`;
    const { rows } = await pool.query<{ n: string; md5: string | null }>(
      `select count(*) as n, md5(string_agg(md5(${row}), '' order by ${keys[table]!.split(', ').map((k) => `t.${k}`).join(', ')})) as md5 from ${table} t`);
    out[table] = { rows: Number(rows[0]!.n), md5: rows[0]!.md5 ?? '' };
  }
  return out;
}

/** Adds to `pool`'s device-data tables the columns `like` has and they lack (today's schema beside later migrations). */
export async function addMissingColumns(pool: pg.Pool, like: pg.Pool): Promise<void> {
  const { rows } = await like.query<{ table_name: string; column_name: string; type: string }>(`
    select c.table_name, c.column_name, format_type(a.atttypid, a.atttypmod) as type
      from information_schema.columns c join pg_attribute a on a.attrelid = c.table_name::regclass and a.attname = c.column_name
     where c.table_schema = 'public' and c.table_name = any($1)`, [DEVICE_DATA_TABLES]);
  const have = await deviceDataColumns(pool);
  for (const r of rows) {
    if (!have[r.table_name]?.includes(r.column_name)) await pool.query(`alter table ${r.table_name} add column "${r.column_name}" ${r.type}`);
  }
}
