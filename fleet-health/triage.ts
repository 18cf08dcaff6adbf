// Silent-device triage, the fleet worker's step (issue 44 point 4; docs/decisions.md#silent-device-triage): reads
// every device silent by the one offline rule (domain/checkin-clock.ts offlineAtSql) with the evidence the rules
// of fleet/silence-triage.ts weigh (its last rollup days, its feeder's topology, the trips of its line), labels
// each, replaces device_silence (a device that checked in again loses its row) and opens or closes the possible
// de-energised sections (deenergised-sections.ts), all in the caller's transaction. Judged per organisation, so
// no device's evidence names another organisation's devices or lines; a device moved between organisations is
// judged on its days in the one that holds it (read-scope.ts), so its evidence shows none of the old one's.
import type pg from 'pg';
import { offlineAtSql, silenceAsOfSql, type SilenceLimits } from '../domain/checkin-clock.js';
import type { Phase } from '../domain/feeder-topology.js';
import type { FeederNode } from '../fleet/dark-section.js';
import type { Histogram } from '../fleet/health-day.js';
import { TRIAGE_DAYS, labelSilence, type DeenergisedSection, type SilenceVerdict, type SilentDevice, type TriageDay } from '../fleet/silence-triage.js';
import { applyDeenergisedSections, type SectionChanges } from './deenergised-sections.js';
import { dayReadableSql } from './read-scope.js';

export interface TriageResult { silent: number; byLabel: Record<string, number>; sections: SectionChanges }

interface SilentRow { imei: string; name: string | null; org: string; line: string | null; lat: number | null; long: number | null; last: Date | null; bol: number | null }

async function readSilent(client: pg.ClientBase, now: Date, limits: SilenceLimits): Promise<SilentDevice[]> {
  const { rows } = await client.query<SilentRow>(
    `select d."IMEINumber" as imei, d."Real_Name" as name, d."OrganizationID" as org, d."PowerLineID" as line, d."Lat" as lat, d."Long" as long,
            d."LastCheckInTime" as last, l."BatteryOrLine" as bol
       from device_information d
       left join checkin_clock c on c."IMEINumber" = d."IMEINumber"
       left join device_latest l on l."IMEINumber" = d."IMEINumber"
      where d.deleted_at is null
        and (d."LastCheckInTime" is null
             or ${offlineAtSql('d."LastCheckInTime"', 'c.expected_interval_s', '$2', '$3')} < ${silenceAsOfSql('$1', '$4')})
      order by 1`,
    [now, limits.floorS, limits.ceilingS, limits.lagBoundS ?? 0],
  );
  const heard = rows.filter((r) => r.last !== null);
  const days = new Map<string, TriageDay[]>();
  if (heard.length > 0) {
    const { rows: dayRows } = await client.query<{ imei: string; day: string; battery: number | null; vals: number[]; counts: number[] }>(
      `select h."IMEINumber" as imei, h.day::text as day, least(h.battery_mcu_min, h.battery_led_min) as battery, h.rssi_values as vals, h.rssi_counts as counts
         from device_health_days h join unnest($1::text[], $2::timestamptz[]) as s(imei, last) on h."IMEINumber" = s.imei
         join device_information d on d."IMEINumber" = h."IMEINumber"
        where h.day <= (s.last at time zone 'UTC')::date and h.day > (s.last at time zone 'UTC')::date - $3::int
          and ${dayReadableSql('h')}
        order by 1, 2`,
      [heard.map((r) => r.imei), heard.map((r) => r.last), TRIAGE_DAYS],
    );
    for (const r of dayRows) {
      const rssi: Histogram = r.vals.map((v, i) => [v, r.counts[i]!] as const);
      days.set(r.imei, [...(days.get(r.imei) ?? []), { day: r.day, batteryMin: r.battery, rssi }]);
    }
  }
  return rows.map((r) => ({
    imei: r.imei, name: r.name, organizationId: r.org, powerLineId: r.line, lat: r.lat, long: r.long, lastMs: r.last?.getTime() ?? null,
    batteryOrLine: r.bol, days: days.get(r.imei) ?? [],
  }));
}

/** A feeder's indicator with the organisation that holds it. */
type OwnedNode = FeederNode & { org: string };

/** The topology of the lines where a silent line-powered device lies, each indicator marked reporting or silent. */
async function readFeeders(client: pg.ClientBase, silent: readonly SilentDevice[]): Promise<Map<string, OwnedNode[]>> {
  const lines = [...new Set(silent.filter((d) => d.lastMs !== null && d.batteryOrLine === 0 && d.powerLineId !== null).map((d) => d.powerLineId!))];
  const feeders = new Map<string, OwnedNode[]>();
  if (lines.length === 0) return feeders;
  const silentSince = new Map(silent.map((d) => [d.imei, d.lastMs]));
  const { rows } = await client.query<{ imei: string; name: string | null; org: string; line: string; upstream: string | null; phase: Phase; section: string | null; bol: number | null; last: Date | null }>(
    `select d."IMEINumber" as imei, d."Real_Name" as name, d."OrganizationID" as org, d."PowerLineID" as line, d."UpstreamIMEI" as upstream, d."Phase" as phase, d."Section" as section,
            l."BatteryOrLine" as bol, d."LastCheckInTime" as last
       from device_information d left join device_latest l on l."IMEINumber" = d."IMEINumber"
      where d."PowerLineID" = any($1::text[]) and d."Phase" is not null and d.deleted_at is null order by 1`,
    [lines],
  );
  for (const r of rows) {
    const since = silentSince.get(r.imei);
    feeders.set(r.line, [...(feeders.get(r.line) ?? []), {
      imei: r.imei, name: r.name, org: r.org, upstream: r.upstream, phase: r.phase, section: r.section, lineFed: r.bol === 0,
      silentSince: since ?? null, reporting: r.last !== null && since === undefined,
    }]);
  }
  return feeders;
}

/** The latest trip of each line: what fault incidents hold, and what waits in the incident inbox. */
async function readLastTrips(client: pg.ClientBase, lines: readonly string[]): Promise<Map<string, number>> {
  const { rows } = await client.query<{ line: string; at: Date }>(
    `select "PowerLineID" as line, max(last_trip_at) as at from incidents where "PowerLineID" = any($1::text[]) group by 1
     union all
     select d."PowerLineID", max(i."EventTimestamp") from incident_inbox i join device_information d on d."IMEINumber" = i."IMEINumber"
      where d."PowerLineID" = any($1::text[]) group by 1`,
    [lines],
  );
  const last = new Map<string, number>();
  for (const r of rows) last.set(r.line, Math.max(last.get(r.line) ?? -Infinity, r.at.getTime()));
  return last;
}

async function replaceSilence(client: pg.ClientBase, verdicts: readonly SilenceVerdict[], now: Date): Promise<void> {
  const imeis = verdicts.map((v) => v.imei);
  await client.query('delete from device_silence where "IMEINumber" <> all($1::text[])', [imeis]);
  await client.query(
    `insert into device_silence ("IMEINumber", silent_since, label, evidence, group_key, assessed_at)
     select * , $6::timestamptz from unnest($1::text[], $2::timestamptz[], $3::text[], $4::jsonb[], $5::text[])
     on conflict ("IMEINumber") do update set silent_since = excluded.silent_since, label = excluded.label, evidence = excluded.evidence,
       group_key = excluded.group_key, assessed_at = excluded.assessed_at`,
    [imeis, verdicts.map((v) => (v.silentSince === null ? null : new Date(v.silentSince))), verdicts.map((v) => v.label),
      verdicts.map((v) => JSON.stringify(v.evidence)), verdicts.map((v) => v.groupKey), now],
  );
}

/**
 * The fleet worker's triage step: labels every silent device, replaces device_silence, opens and closes possible
 * de-energised sections. `limits`: the offline rule's floor and ceiling (CHECKIN_INTERVAL_FLOOR_MINUTES,
 * OFFLINE_AFTER_HOURS), as the incident worker is given them, and the lag bound: silence is judged at the
 * pipeline's progress, as the communication-lost scan judges it (docs/decisions.md#silence-judged-against-the-pipelines-progress).
 */
export async function triageSilence(client: pg.PoolClient, now: Date, limits: SilenceLimits): Promise<TriageResult> {
  const silent = await readSilent(client, now, limits);
  const feeders = await readFeeders(client, silent);
  const lastTrip = await readLastTrips(client, [...feeders.keys()]);
  const verdicts: SilenceVerdict[] = [];
  const sections: DeenergisedSection[] = [];
  for (const org of [...new Set(silent.map((d) => d.organizationId))].sort()) {
    const mine = silent.filter((d) => d.organizationId === org);
    const lines = new Set(mine.map((d) => d.powerLineId));
    // Only the organisation's own indicators of each line: a line given to another organisation by an import may
    // still carry the first one's devices, and a section (or a device's verdict) spanning both would name the other's
    // devices and be written by both passes (docs/decisions.md#review-of-fleet-health-as-a-hostile-party).
    const own = [...feeders].filter(([line]) => lines.has(line)).map(([line, nodes]) => [line, nodes.filter((n) => n.org === org)] as const);
    const r = labelSilence({ silent: mine, feeders: new Map(own), lastTrip });
    verdicts.push(...r.verdicts);
    sections.push(...r.sections);
  }
  await replaceSilence(client, verdicts, now);
  const changes = await applyDeenergisedSections(client, sections, new Set(silent.map((d) => d.imei)), now);
  const byLabel: Record<string, number> = {};
  for (const v of verdicts) byLabel[v.label] = (byLabel[v.label] ?? 0) + 1;
  return { silent: verdicts.length, byLabel, sections: changes };
}
