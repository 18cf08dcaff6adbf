// The fleet scenarios (simulator/fleet-scenarios/) produce what they promise: reference data the import takes,
// messages that tell each story (the drain stops on its exhaustion day with the voltage flat then falling, the
// carrier outage spans several feeders in one area within one hour, the lateral below one topology point goes
// quiet with no trip, ...) and a truth that names every device. No servers; the drift scenario is checked
// through assessDrift against Postgres in test/integration/fleet/drift.test.ts.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { checkTopology, type Phase } from '../../domain/feeder-topology.js';
import { parseQueueMessage } from '../../domain/validate-message.js';
import { foldCheckIn, histogramMedian, slopePerDay, type HealthDay } from '../../fleet/health-day.js';
import { DRIFT_SETTINGS, settingsDrift, type ReportedDay } from '../../fleet/settings-drift.js';
import { validateImport } from '../../reference-data/validate.js';
import { chargeOf } from '../../fleet/battery-forecast.js';
import { CLUSTER_RADIUS_KM } from '../../fleet/silence-area.js';
import { DRAIN_BUDGET, MIN_FORECAST_DAYS } from '../../simulator/fleet-scenarios/battery-drain.js';
import { CARRIER_DEVICES, CARRIER_RADIUS_KM } from '../../simulator/fleet-scenarios/carrier-outage.js';
import { DRIFT_PROFILE } from '../../simulator/fleet-scenarios/firmware-drift.js';
import { fleetScenarios, isScenarioImei, scenarioImportFile, scenarioNames, SCENARIO_NAMES, type FleetScenario, type ScenarioName } from '../../simulator/fleet-scenarios/index.js';
import type { SimulatedMessage } from '../../simulator/fleet.js';
import type { DeviceData } from '../../domain/checkin.js';

const END = Date.UTC(2026, 10, 28, 15, 20);
const DAY = 86_400_000;
const all = fleetScenarios({ endMs: END });
const one = (name: ScenarioName): FleetScenario => all.find((s) => s.name === name)!;
const dateOf = (m: SimulatedMessage) => Date.parse(String(m.device_data.date));
const of = (s: FleetScenario, imei: string) => s.messages.filter((m) => m.device_data.IMEINumber === imei);
const lastAt = (s: FleetScenario, imei: string) => Math.max(...of(s, imei).map(dateOf));

/** The day rows persist would keep for a scenario's messages (the pure fold of fleet/health-day.ts). */
function healthDays(s: FleetScenario): Map<string, HealthDay[]> {
  const rows = new Map<string, HealthDay>();
  for (const m of s.messages) {
    const parsed = parseQueueMessage(JSON.stringify(m));
    if (!parsed.ok) throw new Error(parsed.reason);
    const d: DeviceData = parsed.value.device_data;
    const key = `${d.IMEINumber} ${d.date.slice(0, 10)}`;
    rows.set(key, foldCheckIn(rows.get(key) ?? null, d));
  }
  const out = new Map<string, HealthDay[]>();
  for (const r of rows.values()) out.set(r.IMEINumber, [...(out.get(r.IMEINumber) ?? []), r]);
  return out;
}

test('every scenario: reference data the import accepts, a truth for each of its devices and no other, valid messages from its devices only', () => {
  for (const s of all) {
    const file = { organizations: [{ OrganizationID: 'north', name: 'North' }], ...scenarioImportFile([s]) };
    const result = validateImport(file);
    assert.ok(result.ok, `${s.name}: ${JSON.stringify(!result.ok && result.problems.slice(0, 3))}`);
    const imeis = s.reference.devices.map((d) => d.IMEINumber as string);
    assert.equal(s.truth.map((t) => t.imei).sort(), [...imeis].sort(), s.name);
    const known = new Set(imeis);
    for (const m of s.messages) {
      assert.ok(known.has(String(m.device_data.IMEINumber)), s.name);
      const parsed = parseQueueMessage(JSON.stringify(m));
      assert.ok(parsed.ok, `${s.name}: ${!parsed.ok && parsed.reason}`);
      assert.ok(dateOf(m) < END, `${s.name}: a message after the end`);
      assert.equal(m.events, [], `${s.name}: no trip in any fleet scenario`);
    }
    const dates = s.messages.map((m) => String(m.device_data.date));
    assert.equal(dates, [...dates].sort(), `${s.name}: messages in device-time order`);
  }
});

test('all scenarios together: IMEIs unique and recognisable, the same options give the same scenarios', () => {
  const imeis = all.flatMap((s) => s.truth.map((t) => t.imei));
  assert.is(new Set(imeis).size, imeis.length);
  assert.ok(imeis.every(isScenarioImei));
  assert.equal(JSON.stringify(fleetScenarios({ endMs: END })), JSON.stringify(all));
  assert.equal(all.map((s) => s.name), SCENARIO_NAMES);
  assert.equal(scenarioNames('all'), SCENARIO_NAMES);
  assert.equal(scenarioNames('carrier-outage, firmware-drift'), ['carrier-outage', 'firmware-drift']);
  assert.throws(() => scenarioNames('carrier'), /unknown scenario "carrier"; known: all, battery-drain/);
});

test('battery drain: messages stop on the exhaustion day, the charge spent is the budget, the voltage holds flat then falls', () => {
  const s = one('battery-drain');
  const forecasts = s.truth.map((t) => t.battery!.forecast).sort();
  assert.equal(forecasts, ['ends', 'ends', 'exhausted', 'exhausted', 'not_enough_data']);
  for (const t of s.truth) {
    const messages = of(s, t.imei);
    const first = Math.min(...messages.map(dateOf));
    const last = lastAt(s, t.imei);
    if (t.battery!.forecast === 'exhausted') {
      assert.is(t.silence, 'battery_exhausted');
      assert.is(new Date(last).toISOString().slice(0, 10), t.battery!.exhaustionDay, 'the last message is on the exhaustion day');
      // The model's own budget (fleet/battery-budget.ts), spent to within one more check-in's cost.
      const cost = (m: (typeof messages)[number]) => chargeOf(DRAIN_BUDGET, 1, Number(m.device_data.ConnectTime));
      const spent = messages.reduce((n, m) => n + cost(m), 0);
      const most = Math.max(...messages.map(cost));
      assert.ok(spent <= DRAIN_BUDGET.capacityMah && spent > DRAIN_BUDGET.capacityMah - 1.2 * most, `spent ${spent} of ${DRAIN_BUDGET.capacityMah}`);
      // Flat for the first half of its life, then falling well below.
      const v = messages.map((m) => Number(m.device_data.BatteryMCU));
      assert.ok(v.slice(0, v.length >> 1).every((x) => x > 3.56 && x < 3.61), 'flat while charged');
      assert.ok(v[v.length - 1]! < 3.1, `falls at the end: ${v[v.length - 1]}`);
    } else {
      assert.is(t.silence, null);
      assert.ok(t.battery!.exhaustionDay > new Date(END).toISOString().slice(0, 10), 'runs out after the end');
      assert.ok(last > END - 2 * 3_600_000, 'still reporting at the end');
      const history = (END - first) / DAY;
      assert.is(history < MIN_FORECAST_DAYS, t.battery!.forecast === 'not_enough_data', `history ${history} days`);
    }
    assert.ok(messages.every((m) => m.device_data.BatteryOrLine === 1), 'battery powered');
  }
});

test('RSSI decline: the daily medians fall; the devices whose signal is lost stop reporting days before the end', () => {
  const s = one('rssi-decline');
  const days = healthDays(s);
  assert.equal(s.truth.map((t) => t.silence).sort(), [null, null, 'signal_decline', 'signal_decline']);
  for (const t of s.truth) {
    const slope = slopePerDay(days.get(t.imei)!.map((d) => ({ day: d.day, value: histogramMedian(d.rssi)! })))!;
    assert.ok(slope < -0.5, `${t.imei} slope ${slope}`);
    if (t.silence) assert.ok(lastAt(s, t.imei) < END - 2 * DAY);
    else assert.ok(lastAt(s, t.imei) > END - 2 * 3_600_000);
  }
});

test(`carrier outage: ${CARRIER_DEVICES} devices in one area on several feeders, line-powered and battery, silent within one hour`, () => {
  const s = one('carrier-outage');
  const devices = s.reference.devices;
  assert.is(devices.length, CARRIER_DEVICES);
  assert.ok(new Set(devices.map((d) => d.PowerLineID)).size >= 3, 'several feeders');
  const km = (a: typeof devices[number], b: typeof devices[number]) => Math.hypot((Number(a.Lat) - Number(b.Lat)) * 111, (Number(a.Long) - Number(b.Long)) * 111 * Math.cos((Number(a.Lat) * Math.PI) / 180));
  for (const a of devices) for (const b of devices) assert.ok(km(a, b) <= 2 * CARRIER_RADIUS_KM + 0.1 && km(a, b) <= CLUSTER_RADIUS_KM + 0.1, 'one area: every two within the triage\'s area radius');
  const lasts = s.truth.map((t) => lastAt(s, t.imei));
  assert.ok(Math.max(...lasts) - Math.min(...lasts) < 3_600_000, 'silent within the same hour');
  assert.ok(Math.max(...lasts) < END - 4 * 3_600_000, 'and silent since');
  const power = new Set(s.messages.map((m) => m.device_data.BatteryOrLine));
  assert.equal([...power].sort(), [0, 1]);
  assert.ok(s.truth.every((t) => t.silence === 'cluster'));
  assert.equal(checkTopology(devices.map(node)), []);
});

const node = (d: FleetScenario['reference']['devices'][number]) => ({
  imei: d.IMEINumber as string, powerLineId: (d.PowerLineID ?? null) as string | null, upstream: (d.UpstreamIMEI ?? null) as string | null, phase: (d.Phase ?? null) as Phase | null,
});

test('de-energised lateral: exactly the line-powered devices below one point go quiet together with no trip; the rest of the feeder reports', () => {
  const s = one('deenergised-lateral');
  assert.equal(checkTopology(s.reference.devices.map(node)), []);
  const dead = s.truth.filter((t) => t.silence === 'deenergised');
  const point = dead[0]!.together!.point!;
  // Below the point, by the imported topology.
  const up = new Map(s.reference.devices.map((d) => [d.IMEINumber as string, (d.UpstreamIMEI ?? null) as string | null]));
  const below = (imei: string): boolean => { for (let at: string | null = imei; at !== null; at = up.get(at) ?? null) if (at === point) return true; return false; };
  assert.equal(dead.map((t) => t.imei).sort(), [...up.keys()].filter(below).sort());
  assert.is(s.reference.devices.find((d) => d.IMEINumber === point)!.Section, dead[0]!.together!.section);
  const lasts = dead.map((t) => lastAt(s, t.imei));
  assert.ok(Math.max(...lasts) - Math.min(...lasts) < 3_600_000, 'silent within the same hour');
  for (const t of s.truth.filter((x) => x.silence === null)) assert.ok(lastAt(s, t.imei) > Math.max(...lasts) + 3 * 3_600_000, 'the rest keeps reporting');
  assert.ok(s.messages.every((m) => m.device_data.BatteryOrLine === 0), 'line powered');
  assert.ok(new Set(s.reference.devices.map((d) => d.PowerLineID)).size === 1, 'one feeder');
});

test('never commissioned: in the reference data, no message', () => {
  const s = one('never-commissioned');
  assert.ok(s.truth.length >= 1);
  assert.is(s.messages.length, 0);
  assert.ok(s.truth.every((t) => t.silence === 'never_commissioned'));
});

test('firmware change on part of a group: the pure drift rule over the days persist would keep gives exactly the truth', () => {
  const s = one('firmware-drift');
  const group = s.reference.groups[0]!;
  assert.equal(Object.fromEntries(DRIFT_SETTINGS.map((d) => [d.profile, group[d.profile]])), DRIFT_PROFILE);
  const profile = Object.fromEntries(DRIFT_SETTINGS.map((d) => [d.setting, group[d.profile] ?? null]));
  const days = healthDays(s);
  const drifting = s.truth.filter((t) => t.drift!.length > 0);
  assert.is(drifting.length, 5, 'four updated, one switched to manual');
  assert.ok(s.truth.length > drifting.length + 1, 'part of the group only');
  for (const t of s.truth) {
    const reported: ReportedDay[] = days.get(t.imei)!.map((d) => ({ day: d.day, values: Object.fromEntries(DRIFT_SETTINGS.map((x) => [x.setting, d.values[x.day]])) }));
    assert.equal(settingsDrift(profile, reported), t.drift!.map((d) => ({ ...d })), t.imei);
  }
});

test.run();
