// Why a silent device is silent (issue 44 point 4; docs/decisions.md#silent-device-triage): every device past its
// learned interval (the one offline rule, domain/checkin-clock.ts) gets one label with the evidence it was given
// on. Group causes come before a device's own trend: several devices going quiet in one hour is a shared cause
// far more often than batteries or radios ending together. In order:
//   never_commissioned  registered, never checked in;
//   deenergised         line-powered indicators silent together below one topology point (dark-section.ts),
//                       no trip on the line, and no sign of the carrier (its area group holds no silent device
//                       of another line and no silent battery-powered one);
//   cluster             several devices of one area silent within the hour (silence-area.ts): the carrier;
//   battery_exhausted   not on line power, battery low or falling over the days before the silence;
//   signal_decline      RSSI weak or falling over the days before the silence;
//   unknown             none of these.
import { DEFAULT_BATTERY_BUDGET } from './battery-budget.js';
import { addDays } from './days.js';
import { histogramMedian, slopePerDay, type Histogram } from './health-day.js';
import { FALLING_DB_PER_DAY, MIN_SLOPE_DAYS, SIGNAL_SLOPE_DAYS, WEAK_RSSI_DBM } from './signal-trend.js';
import { darkSections, type DarkSection, type FeederNode } from './dark-section.js';
import { areaGroups, CLUSTER_RADIUS_KM, CLUSTER_WINDOW_MS } from './silence-area.js';

export const SILENCE_LABELS = ['never_commissioned', 'deenergised', 'cluster', 'battery_exhausted', 'signal_decline', 'unknown'] as const;
export type SilenceLabel = (typeof SILENCE_LABELS)[number];

/** Devices of one area group, at least, to call it the carrier. */
export const CLUSTER_MIN = 3;
/**
 * Rollup days read before the silence (the last day is the one of the last check-in): the signal trend's slope
 * window, so a decline is judged over as many days as the trend judges "falling" (fleet/signal-trend.ts).
 */
export const TRIAGE_DAYS = SIGNAL_SLOPE_DAYS;
/**
 * Volts: the lowest cell reading of the last day at or under this is an exhausted battery. The battery budget's
 * low voltage (fleet/battery-budget.ts, the forecast's owner of the fact; the silent device's model is not read).
 */
export const BATTERY_LOW_V = DEFAULT_BATTERY_BUDGET.lowVoltage;
/** The battery evidence reads the last this many of those days: a week, so a slow drift of a month is not an end. */
export const BATTERY_DAYS = 7;
/** Volts: a fall this large across BATTERY_DAYS is a battery ending (lithium holds flat until near its end). */
export const BATTERY_DROP_V = 0.1;
/** dBm: a last day's RSSI median at or under this is a weak signal: the signal trend's threshold (fleet/signal-trend.ts). */
export const RSSI_WEAK_DBM = WEAK_RSSI_DBM;
/** dB per day: a slope of the daily RSSI medians at or under this is a decline: the signal trend's "falling". */
export const RSSI_FALL_DB_PER_DAY = FALLING_DB_PER_DAY;
/** Daily medians the slope needs before it may call a decline: the trend's (fewer say little: 1 dB in 3 days is noise). */
export const RSSI_MIN_DAYS = MIN_SLOPE_DAYS;
/** A trip on the line from this long before the first silence on explains the silence: the fault incident's. */
export const TRIP_LOOKBACK_MS = CLUSTER_WINDOW_MS;

/** One rollup day of a device (device_health_days) as triage reads it. */
export interface TriageDay {
  day: string;
  /** The lowest of the day's BatteryMCU and BatteryLED minima. */
  batteryMin: number | null;
  rssi: Histogram;
}

export interface SilentDevice {
  imei: string;
  name: string | null;
  organizationId: string;
  powerLineId: string | null;
  lat: number | null;
  long: number | null;
  /** The last check-in (ms); null: never checked in. */
  lastMs: number | null;
  /** BatteryOrLine of the last check-in: 0 line, 1 battery, null not reported. */
  batteryOrLine: number | null;
  /** Up to TRIAGE_DAYS rollup days ending with the day of the last check-in, oldest first. */
  days: readonly TriageDay[];
}

export interface TriageInput {
  silent: readonly SilentDevice[];
  /** The topology of each power line a silent line-powered device is on (only devices with a phase). */
  feeders: ReadonlyMap<string, readonly FeederNode[]>;
  /** The latest trip (device time, ms) of each power line: fault incidents and trips still in the inbox. */
  lastTrip: ReadonlyMap<string, number>;
}

export interface SilenceVerdict {
  imei: string;
  silentSince: number | null;
  label: SilenceLabel;
  evidence: Record<string, unknown>;
  /** The cluster or section it was judged with (cluster, deenergised), else null. */
  groupKey: string | null;
}

export interface DeenergisedSection extends DarkSection {
  key: string;
  organizationId: string;
  powerLineId: string;
}

const iso = (ms: number) => new Date(ms).toISOString();
export const sectionKey = (powerLineId: string, pointImei: string) => `deenergised:${powerLineId}:${pointImei}`;

/** The battery evidence of a device not on line power, or null when it shows nothing. */
export function batteryEvidence(d: SilentDevice): Record<string, unknown> | null {
  if (d.batteryOrLine === 0) return null;
  const lastDay = d.days.at(-1)?.day;
  const from = lastDay === undefined ? '' : addDays(lastDay, 1 - BATTERY_DAYS);
  const readings = d.days.filter((x) => x.batteryMin !== null && x.day >= from).map((x) => ({ day: x.day, volts: x.batteryMin! }));
  if (readings.length === 0) return null;
  const last = readings[readings.length - 1]!.volts, first = readings[0]!.volts;
  const low = last <= BATTERY_LOW_V, falling = first - last >= BATTERY_DROP_V;
  if (!low && !falling) return null;
  return { low, falling, lastVolts: last, dropVolts: Math.round((first - last) * 1000) / 1000, lowVolts: BATTERY_LOW_V, dropThresholdVolts: BATTERY_DROP_V, days: readings };
}

/** The signal evidence of a device, or null when it shows nothing. */
export function signalEvidence(d: SilentDevice): Record<string, unknown> | null {
  const medians = d.days.flatMap((x) => { const m = histogramMedian(x.rssi); return m === null ? [] : [{ day: x.day, value: m }]; });
  if (medians.length === 0) return null;
  const last = medians[medians.length - 1]!.value;
  const slope = medians.length >= RSSI_MIN_DAYS ? slopePerDay(medians) : null;
  const weak = last <= RSSI_WEAK_DBM, falling = slope !== null && slope <= RSSI_FALL_DB_PER_DAY;
  if (!weak && !falling) return null;
  return {
    weak, falling, lastMedianDbm: last, slopeDbPerDay: slope === null ? null : Math.round(slope * 100) / 100, weakDbm: RSSI_WEAK_DBM,
    fallDbPerDay: RSSI_FALL_DB_PER_DAY, days: medians.map((m) => ({ day: m.day, medianDbm: m.value })),
  };
}

/**
 * One verdict per silent device, and the de-energised sections found (each named by its topology point).
 *
 * @example
 *   labelSilence({ silent: [never], feeders: new Map(), lastTrip: new Map() }).verdicts[0].label // 'never_commissioned'
 */
export function labelSilence(input: TriageInput): { verdicts: SilenceVerdict[]; sections: DeenergisedSection[] } {
  const byImei = new Map(input.silent.map((d) => [d.imei, d]));
  const verdicts = new Map<string, SilenceVerdict>();
  const commissioned = input.silent.filter((d) => d.lastMs !== null);
  for (const d of input.silent) {
    if (d.lastMs === null) verdicts.set(d.imei, { imei: d.imei, silentSince: null, label: 'never_commissioned', evidence: { checkIns: 0 }, groupKey: null });
  }
  const areas = areaGroups(commissioned.map((d) => ({ imei: d.imei, lat: d.lat, long: d.long, lastMs: d.lastMs! })));
  const areaOf = new Map(areas.flatMap((g) => g.map((imei) => [imei, g] as const)));

  // De-energised sections: dark below one point, no trip, no sign of the carrier.
  const sections: DeenergisedSection[] = [];
  for (const [line, nodes] of [...input.feeders].sort(([a], [b]) => (a < b ? -1 : 1))) {
    for (const s of darkSections(nodes)) {
      const trip = input.lastTrip.get(line);
      const tripped = trip !== undefined && trip >= s.silentFrom - TRIP_LOOKBACK_MS;
      const area = [...new Set(s.devices.flatMap((m) => areaOf.get(m.imei) ?? [m.imei]))].map((i) => byImei.get(i)).filter((x) => x !== undefined);
      const carrier = area.some((x) => x.powerLineId !== line || x.batteryOrLine === 1);
      if (tripped || carrier) continue;
      const organizationId = byImei.get(s.devices[0]!.imei)?.organizationId;
      if (organizationId === undefined) continue;
      const section: DeenergisedSection = { ...s, key: sectionKey(line, s.point.imei), organizationId, powerLineId: line };
      sections.push(section);
      const evidence = {
        powerLineId: line, point: s.point, upstream: s.upstream, section: s.label, phase: s.phase, devices: s.devices.length,
        silentFrom: iso(s.silentFrom), silentTo: iso(s.silentTo), noTripSince: iso(s.silentFrom - TRIP_LOOKBACK_MS),
      };
      for (const m of s.devices) verdicts.set(m.imei, { imei: m.imei, silentSince: m.silentSince, label: 'deenergised', evidence, groupKey: section.key });
    }
  }

  // The carrier: an area group of CLUSTER_MIN or more, counting only devices no earlier rule explained.
  for (const g of areas) {
    const rest = g.filter((i) => !verdicts.has(i)).map((i) => byImei.get(i)!);
    if (rest.length < CLUSTER_MIN) continue;
    const times = rest.map((d) => d.lastMs!);
    const evidence = {
      devices: rest.length, powerLines: [...new Set(rest.map((d) => d.powerLineId ?? '(none)'))].sort(), radiusKm: CLUSTER_RADIUS_KM,
      windowMinutes: CLUSTER_WINDOW_MS / 60_000, silentFrom: iso(Math.min(...times)), silentTo: iso(Math.max(...times)),
    };
    const key = `cluster:${rest[0]!.imei}`;
    for (const d of rest) verdicts.set(d.imei, { imei: d.imei, silentSince: d.lastMs, label: 'cluster', evidence, groupKey: key });
  }

  // A device's own trend.
  for (const d of commissioned) {
    if (verdicts.has(d.imei)) continue;
    const battery = batteryEvidence(d);
    const signal = battery ? null : signalEvidence(d);
    const label: SilenceLabel = battery ? 'battery_exhausted' : signal ? 'signal_decline' : 'unknown';
    const trip = d.powerLineId === null ? undefined : input.lastTrip.get(d.powerLineId);
    const evidence = battery ?? signal ?? {
      daysRead: d.days.length, batteryOrLine: d.batteryOrLine,
      ...(trip !== undefined && trip >= d.lastMs! - TRIP_LOOKBACK_MS ? { tripOnLineAt: iso(trip) } : {}),
    };
    verdicts.set(d.imei, { imei: d.imei, silentSince: d.lastMs, label, evidence, groupKey: null });
  }
  return { verdicts: [...verdicts.values()].sort((a, b) => (a.imei < b.imei ? -1 : 1)), sections };
}
