// The fleet worker's drift step (issue 44 point 5; docs/decisions.md#settings-drift): each device in a group with
// a profile (migration 0036) has its reported firmware and reset settings of the last DRIFT_WINDOW_DAYS
// (device_health_days) compared with the profile by the pure rule (fleet/settings-drift.ts), and device_drift
// (migration 0034) is made to hold exactly the drifts found: new ones inserted, changed ones updated, ended
// ones (and those of devices removed or no longer profiled) deleted. Devices are read in bounded batches.
import type pg from 'pg';
import { dayReadableSql, wholeDayReadableSql } from './read-scope.js';
import { DRIFT_SETTINGS, profileOf, settingsDrift, type Drift, type DriftSettingName, type Profile, type ReportedDay, type SettingValue } from '../fleet/settings-drift.js';

/**
 * Days of reports read per device. A run of differing days that began earlier keeps the day an earlier
 * assessment recorded (settingsDrift's `before`), so the window bounds the read, not the answer.
 */
export const DRIFT_WINDOW_DAYS = 35;
const BATCH = 1000;

export interface DriftResult {
  /** Devices with a profile that were compared. */
  devices: number;
  /** device_drift rows after the step. */
  drifts: number;
}

const q = (name: string) => `"${name}"`;
// Fixed SQL text, made once from the settings table (never from input).
const PROFILED = `
  select d."IMEINumber" as imei, g."GroupID" as group_id, ${DRIFT_SETTINGS.map((s) => `g.${q(s.profile)} as ${q(s.setting)}`).join(', ')}
    from device_information d
    join group_device_links l on l."DeviceID" = d."DeviceID"
    join groups g on g."GroupID" = l."GroupID" and g.deleted_at is null
   where d.deleted_at is null and (${DRIFT_SETTINGS.map((s) => `g.${q(s.profile)} is not null`).join(' or ')})
   order by d."IMEINumber", g."GroupID"`;
// Only the days of the organisation that holds the device now (read-scope.ts): a moved device's drift is dated
// within its stay, never by a day of the organisation it left.
const DAYS = `
  select h."IMEINumber" as imei, h.day::text as day, ${DRIFT_SETTINGS.map((s) => `h.${q(s.day)} as ${q(s.setting)}`).join(', ')}
    from device_health_days h join device_information d on d."IMEINumber" = h."IMEINumber"
   where h."IMEINumber" = any($1::text[]) and h.day between $2::date and $3::date and ${dayReadableSql('h')}`;

type Row = { imei: string } & Record<DriftSettingName, SettingValue>;

const valuesOf = (row: Row): Profile => Object.fromEntries(DRIFT_SETTINGS.map((s) => [s.setting, row[s.setting]]));

/**
 * Replaces device_drift with the drifts of every profiled device as of `now`. Run by the fleet worker after the
 * health and silence steps, in its transaction; safe to run directly (each statement leaves a consistent table).
 *
 * @example
 *   await assessDrift(client, new Date()); // { devices: 120, drifts: 7 }
 */
export async function assessDrift(client: pg.PoolClient, now: Date): Promise<DriftResult> {
  const today = now.toISOString().slice(0, 10);
  const from = new Date(Date.parse(`${today}T00:00:00Z`) - (DRIFT_WINDOW_DAYS - 1) * 86_400_000).toISOString().slice(0, 10);
  const profiled = (await client.query<Row & { group_id: string }>(PROFILED)).rows;
  const groupsOf = new Map<string, { GroupID: string; profile: Profile }[]>();
  for (const r of profiled) groupsOf.set(r.imei, [...(groupsOf.get(r.imei) ?? []), { GroupID: r.group_id, profile: valuesOf(r) }]);
  const imeis = [...groupsOf.keys()];

  const found: (Drift & { imei: string })[] = [];
  for (let at = 0; at < imeis.length; at += BATCH) {
    const batch = imeis.slice(at, at + BATCH);
    const days = new Map<string, ReportedDay[]>();
    for (const r of (await client.query<Row & { day: string }>(DAYS, [batch, from, today])).rows) {
      days.set(r.imei, [...(days.get(r.imei) ?? []), { day: r.day, values: valuesOf(r) }]);
    }
    const before = new Map<string, Drift[]>();
    const previous = await client.query<{ imei: string; setting: DriftSettingName; expected: string | null; reported: string | null; since: string }>(
      `select x."IMEINumber" as imei, x.setting, x.expected, x.reported, x.since_day::text as since
         from device_drift x join device_information d on d."IMEINumber" = x."IMEINumber"
        where x."IMEINumber" = any($1::text[]) and ${wholeDayReadableSql('x.since_day')}`, [batch]);
    for (const r of previous.rows) {
      before.set(r.imei, [...(before.get(r.imei) ?? []), { setting: r.setting, expected: r.expected ?? '', reported: r.reported ?? '', sinceDay: r.since }]);
    }
    for (const imei of batch) {
      for (const d of settingsDrift(profileOf(groupsOf.get(imei)!), days.get(imei) ?? [], before.get(imei) ?? [])) found.push({ imei, ...d });
    }
  }

  await client.query(
    `insert into device_drift ("IMEINumber", setting, expected, reported, since_day, assessed_at)
     select * from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::date[], $6::timestamptz[])
     on conflict ("IMEINumber", setting) do update
       set expected = excluded.expected, reported = excluded.reported, since_day = excluded.since_day, assessed_at = excluded.assessed_at`,
    [found.map((f) => f.imei), found.map((f) => f.setting), found.map((f) => f.expected), found.map((f) => f.reported),
      found.map((f) => f.sinceDay), found.map(() => now)]);
  await client.query(
    `delete from device_drift x
      where not exists (select 1 from unnest($1::text[], $2::text[]) k(imei, setting) where k.imei = x."IMEINumber" and k.setting = x.setting)`,
    [found.map((f) => f.imei), found.map((f) => f.setting)]);
  return { devices: imeis.length, drifts: found.length };
}
