// Devices and their group links, one chunk of rows per call (multi-row statements; the caller reports
// progress between chunks). Soft delete (spec 2.5 rule 6): `deleted: true` sets deleted_at once and keeps
// the row with its history; a re-import keeps the first deletion time; `false` clears it. A device moved to
// another organisation gets OrganizationSince = now() and no LastCheckInTime yet: the new organisation reads
// its records from the move on (docs/decisions.md#reach-applied-once).
import type pg from 'pg';
import { syncMemberships } from './memberships.js';
import type { DeviceInput, KindCounts } from './model.js';

const UPSERT = `
  insert into device_information
    ("IMEINumber", "OrganizationID", "PowerLineID", "Real_Name", "Lat", "Long", "serialNumber", "dnp3QueueAddress", deleted_at,
     "UpstreamIMEI", "Phase", "Section", "SectionCustomers", "SectionLengthKm")
  select imei, org, line, name, lat, long, serial, queue, case when deleted then now() end, upstream, phase, section, customers, length_km
    from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::float8[], $6::float8[], $7::text[], $8::text[], $9::boolean[],
                $10::text[], $11::text[], $12::text[], $13::int[], $14::float8[])
      as t(imei, org, line, name, lat, long, serial, queue, deleted, upstream, phase, section, customers, length_km)
  on conflict ("IMEINumber") do update set
    "OrganizationSince" = case when device_information."OrganizationID" = excluded."OrganizationID"
                               then device_information."OrganizationSince" else now() end,
    "LastCheckInTime" = case when device_information."OrganizationID" = excluded."OrganizationID"
                             then device_information."LastCheckInTime" end,
    "OrganizationID" = excluded."OrganizationID", "PowerLineID" = excluded."PowerLineID", "Real_Name" = excluded."Real_Name",
    "Lat" = excluded."Lat", "Long" = excluded."Long", "serialNumber" = excluded."serialNumber",
    "dnp3QueueAddress" = excluded."dnp3QueueAddress",
    "UpstreamIMEI" = excluded."UpstreamIMEI", "Phase" = excluded."Phase", "Section" = excluded."Section",
    "SectionCustomers" = excluded."SectionCustomers", "SectionLengthKm" = excluded."SectionLengthKm",
    deleted_at = case when excluded.deleted_at is null then null else coalesce(device_information.deleted_at, excluded.deleted_at) end,
    updated_at = now()
  where (device_information."OrganizationID", device_information."PowerLineID", device_information."Real_Name",
         device_information."Lat", device_information."Long", device_information."serialNumber",
         device_information."dnp3QueueAddress", device_information.deleted_at is null,
         device_information."UpstreamIMEI", device_information."Phase", device_information."Section",
         device_information."SectionCustomers", device_information."SectionLengthKm")
        is distinct from
        (excluded."OrganizationID", excluded."PowerLineID", excluded."Real_Name", excluded."Lat", excluded."Long",
         excluded."serialNumber", excluded."dnp3QueueAddress", excluded.deleted_at is null,
         excluded."UpstreamIMEI", excluded."Phase", excluded."Section", excluded."SectionCustomers", excluded."SectionLengthKm")
  returning "IMEINumber", (xmax = 0) as inserted`;

/**
 * A device moved to another organisation leaves its old owner's open alarms: they end now, each with a `cleared`
 * change the router sends to the old owner's recipients, so nobody there is escalated about a device no longer
 * theirs, and the new owner's alarms are rows of its own (docs/decisions.md#alarms-of-a-moved-device).
 */
async function endAlarmsOfFormerOwners(client: pg.ClientBase, imeis: readonly string[]): Promise<void> {
  await client.query(`
    with ended as (
      update alarms a set cleared_at = now() from device_information d
       where d."IMEINumber" = a."IMEINumber" and a."IMEINumber" = any($1::text[]) and a.cleared_at is null
         and a."OrganizationID" <> d."OrganizationID"
      returning a.id, a.cleared_at)
    insert into alarm_changes (alarm_id, change, at) select id, 'cleared', cleared_at from ended order by id on conflict do nothing`, [imeis]);
}

/** Upserts up to a few thousand devices and sets their groups; a changed group set counts as an update. */
export async function upsertDeviceChunk(client: pg.ClientBase, rows: readonly DeviceInput[]): Promise<KindCounts> {
  if (rows.length === 0) return { inserted: 0, updated: 0, unchanged: 0 };
  const imeis = rows.map((r) => r.IMEINumber);
  const written = await client.query<{ IMEINumber: string; inserted: boolean }>(UPSERT, [
    imeis, rows.map((r) => r.OrganizationID), rows.map((r) => r.PowerLineID), rows.map((r) => r.Real_Name),
    rows.map((r) => r.Lat), rows.map((r) => r.Long), rows.map((r) => r.serialNumber), rows.map((r) => r.dnp3QueueAddress),
    rows.map((r) => r.deleted), rows.map((r) => r.UpstreamIMEI), rows.map((r) => r.Phase), rows.map((r) => r.Section),
    rows.map((r) => r.SectionCustomers), rows.map((r) => r.SectionLengthKm),
  ]);
  const touched = new Map(written.rows.map((r) => [r.IMEINumber, r.inserted]));
  await endAlarmsOfFormerOwners(client, imeis);

  const ids = await client.query<{ IMEINumber: string; DeviceID: number }>(
    'select "IMEINumber", "DeviceID" from device_information where "IMEINumber" = any($1::text[])', [imeis],
  );
  const idOf = new Map(ids.rows.map((r) => [r.IMEINumber, Number(r.DeviceID)]));
  const changedLinks = await syncMemberships(client, 'device', rows.map((r) => [idOf.get(r.IMEINumber)!, r.groups] as const));

  // Devices whose only change is their group set: the row was not rewritten above, so mark it now.
  const linkOnly = rows.filter((r) => !touched.has(r.IMEINumber) && changedLinks.has(idOf.get(r.IMEINumber)!)).map((r) => r.IMEINumber);
  if (linkOnly.length > 0) {
    await client.query('update device_information set updated_at = now() where "IMEINumber" = any($1::text[])', [linkOnly]);
  }
  const inserted = [...touched.values()].filter(Boolean).length;
  const updated = touched.size - inserted + linkOnly.length;
  return { inserted, updated, unchanged: rows.length - inserted - updated };
}
