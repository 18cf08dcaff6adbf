// The fleet summary (issue 44 point 2): the counts the /fleet cards show, for a set of devices. The API
// (GET /api/fleet/summary) and the fleet digest both call fleetSummary, so their counts are equal by
// construction (docs/decisions.md#fleet-api-issue-44-fleet-api). Read from what the fleet worker last
// concluded (device_health, device_silence, device_drift: migration 0034), one row per device, never a history.
import type pg from 'pg';
import { assessmentReadableSql, type DeviceScope, type Params } from './read-scope.js';

/** The labels of device_silence (migration 0034), in the order the cards list them. */
export const SILENCE_LABELS = ['never_commissioned', 'battery_exhausted', 'signal_decline', 'cluster', 'deenergised', 'unknown'] as const;
export type SilenceLabel = (typeof SILENCE_LABELS)[number];

/** The battery card: an estimated end within this many days of today (UTC). */
export const BATTERY_END_WITHIN_DAYS = 90;

export interface OnlineRate {
  /** Check-ins received in the window, each device counted up to what it was expected to send. */
  received: number;
  expected: number;
  /** received / expected; null when nothing was expected. */
  rate: number | null;
  /** Devices with an assessment (device_health row) whose figures are in the sums. */
  devices: number;
}

export interface FleetSummary {
  devices: number;
  /** Devices with an assessment row the reader may see; the others count as not assessed in every card. */
  assessed: number;
  online7d: OnlineRate;
  online30d: OnlineRate;
  /** Devices whose estimated battery end day is within BATTERY_END_WITHIN_DAYS of today. */
  batteryEndWithin90d: number;
  signal: { weak: number; falling: number };
  firmwareByModel: { model: string | null; firmware: string | null; devices: number }[];
  silentByLabel: Record<SilenceLabel, number>;
  silent: number;
  drifting: number;
}

class Collector implements Params {
  readonly values: unknown[] = [];
  add(value: unknown): string { this.values.push(value); return `$${this.values.length}`; }
}

const rate = (received: number, expected: number) => (expected > 0 ? received / expected : null);

/**
 * The summary of the devices `scope` selects, at `now` (the battery card's today).
 * A device's extra check-ins do not make up for another's missed ones: each counts up to its expected.
 */
export async function fleetSummary(db: Pick<pg.Pool, 'query'>, scope: DeviceScope, now: Date): Promise<FleetSummary> {
  const p = new Collector();
  const where = scope(p);
  const today = p.add(now.toISOString().slice(0, 10));
  const health = `left join device_health h on h."IMEINumber" = d."IMEINumber" and ${assessmentReadableSql('h')}`;
  const silence = `left join device_silence s on s."IMEINumber" = d."IMEINumber" and ${assessmentReadableSql('s')}`;
  const totals = db.query<Record<string, string>>(`
    select count(*) as devices, count(h."IMEINumber") as assessed,
           coalesce(sum(least(h.received_7d, h.expected_7d)), 0) as r7, coalesce(sum(h.expected_7d), 0) as e7,
           coalesce(sum(least(h.received_30d, h.expected_30d)), 0) as r30, coalesce(sum(h.expected_30d), 0) as e30,
           count(*) filter (where h.battery_end_day < ${today}::date + ${BATTERY_END_WITHIN_DAYS + 1}) as battery,
           count(*) filter (where h.signal = 'weak') as weak, count(*) filter (where h.signal = 'falling') as falling,
           count(*) filter (where exists (select 1 from device_drift x where x."IMEINumber" = d."IMEINumber" and ${assessmentReadableSql('x')})) as drifting
      from device_information d ${health}
     where ${where}`, p.values);
  const q = new Collector();
  const qWhere = scope(q);
  const firmware = db.query<{ model: string | null; firmware: string | null; n: string }>(`
    select h.model, h.firmware, count(*) as n
      from device_information d join device_health h on h."IMEINumber" = d."IMEINumber" and ${assessmentReadableSql('h')}
     where ${qWhere}
     group by 1, 2 order by 1 nulls last, 2 nulls last`, q.values);
  const r = new Collector();
  const rWhere = scope(r);
  const labels = db.query<{ label: SilenceLabel; n: string }>(`
    select s.label, count(*) as n from device_information d ${silence.replace('left join', 'join')}
     where ${rWhere} group by 1`, r.values);
  const [t, f, l] = await Promise.all([totals, firmware, labels]);
  const row = t.rows[0]!;
  const n = (k: string) => Number(row[k]);
  const silentByLabel = Object.fromEntries(SILENCE_LABELS.map((label) => [label, 0])) as Record<SilenceLabel, number>;
  for (const { label, n: count } of l.rows) silentByLabel[label] = Number(count);
  return {
    devices: n('devices'),
    assessed: n('assessed'),
    online7d: { received: n('r7'), expected: n('e7'), rate: rate(n('r7'), n('e7')), devices: n('assessed') },
    online30d: { received: n('r30'), expected: n('e30'), rate: rate(n('r30'), n('e30')), devices: n('assessed') },
    batteryEndWithin90d: n('battery'),
    signal: { weak: n('weak'), falling: n('falling') },
    firmwareByModel: f.rows.map((x) => ({ model: x.model, firmware: x.firmware, devices: Number(x.n) })),
    silentByLabel,
    silent: Object.values(silentByLabel).reduce((a, b) => a + b, 0),
    drifting: n('drifting'),
  };
}
