// Issue 44's Done-when points 3 and 4 end to end (docs/decisions.md#fleet-scenarios-end-to-end): every fleet
// scenario (simulator/fleet-scenarios/) imported, its check-in history (~20,000 check-ins) sent through the real
// stages (enrich, dedup, fault-compute, persist, notify over Kafka and the schema registry into Postgres: the
// Kafka rig of support/pipeline.ts), then
// the fleet worker's steps (fleet-health/steps.ts: assess -> triage -> drift) run at the scenarios' "now". Each
// device is then checked against its scenario's truth: the silence label, the battery forecast, the signal trend
// and the drift; the de-energised lateral opens exactly one possible de-energised section and the carrier
// outage across feeders none.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { loadSettings } from '../../../config/settings.js';
import { withTransaction } from '../../../db/transaction.js';
import { dayStartMs, DAY_MS } from '../../../fleet/days.js';
import { fleetSteps } from '../../../fleet-health/steps.js';
import { importReferenceData } from '../../../reference-data/index.js';
import { fleetScenarios, scenarioImportFile, scenarioOutgoing, type FleetScenario } from '../../../simulator/fleet-scenarios/index.js';
import { startKafkaRig, type KafkaRig } from '../../../support/pipeline.js';

const test = suite('fleet scenarios end to end');
// The scenarios' "now": the last whole minute (the pipeline takes no check-in from the future).
const NOW = Math.floor(Date.now() / 60_000) * 60_000;
const scenarios: FleetScenario[] = fleetScenarios({ endMs: NOW });
const truth = scenarios.flatMap((s) => s.truth);
const MIN_SHARE = 0.95;
let rig: KafkaRig;

interface Health { signal: string; battery_status: string; battery_end_day: string | null }
let silence = new Map<string, { label: string; group_key: string | null }>();
let health = new Map<string, Health>();
const drift = new Map<string, { setting: string; expected: string | null; reported: string | null; since_day: string }[]>();

test.before(async () => {
  rig = await startKafkaRig('fleet-scenarios-e2e');
  const db = rig.db;
  await importReferenceData(db.pool, scenarioImportFile(scenarios));
  const outgoing = scenarioOutgoing(scenarios, 'e2e');
  for (let i = 0; i < outgoing.length; i += 500) await rig.pipe.feed(outgoing.slice(i, i + 500));
  await rig.pipe.drain(600_000);
  const stored = Number((await db.pool.query<{ n: string }>('select count(*) as n from device_records where "IMEINumber" = any($1)', [truth.map((t) => t.imei)])).rows[0]!.n);
  console.log(`fleet scenarios: ${outgoing.length} check-ins sent, ${stored} stored`);
  assert.is(stored, outgoing.length, 'every check-in stored');
  const settings = loadSettings({});
  for (const step of fleetSteps({ checkinFloorS: settings.alarms.checkinFloorS, offlineAfterHours: settings.offlineAfterHours })) {
    await withTransaction(db.pool, (client) => step.run(client, new Date(NOW)));
  }
  const imeis = truth.map((t) => t.imei);
  silence = new Map((await db.pool.query<{ IMEINumber: string; label: string; group_key: string | null }>(
    'select "IMEINumber", label, group_key from device_silence where "IMEINumber" = any($1)', [imeis])).rows.map((r) => [r.IMEINumber, r]));
  health = new Map((await db.pool.query<Health & { IMEINumber: string }>(
    'select "IMEINumber", signal, battery_status, battery_end_day::text from device_health where "IMEINumber" = any($1)', [imeis])).rows.map((r) => [r.IMEINumber, r]));
  for (const r of (await db.pool.query<{ IMEINumber: string; setting: string; expected: string | null; reported: string | null; since_day: string }>(
    'select "IMEINumber", setting, expected, reported, since_day::text from device_drift where "IMEINumber" = any($1) order by 1, 2', [imeis])).rows) {
    drift.set(r.IMEINumber, [...(drift.get(r.IMEINumber) ?? []), r]);
  }
});
test.after(async () => { await rig?.stop(); });

const labelOf = (imei: string) => silence.get(imei)?.label ?? '(reporting)';

test('every scenario: at least 95 % of its devices get the silence label its truth says (confusion printed)', () => {
  for (const s of scenarios) {
    const confusion = new Map<string, number>();
    let right = 0;
    for (const t of s.truth) {
      const want = t.silence ?? '(reporting)', got = labelOf(t.imei);
      if (want === got) right++;
      confusion.set(`${want} -> ${got}`, (confusion.get(`${want} -> ${got}`) ?? 0) + 1);
    }
    console.log(`${s.name}: ${right}/${s.truth.length} labelled as the truth says; ${[...confusion].map(([k, n]) => `${k}: ${n}`).join(', ')}`);
    assert.ok(right >= MIN_SHARE * s.truth.length, `${s.name}: ${right} of ${s.truth.length} right`);
  }
});

test('battery drain: the forecast ends within 10 % of the simulated exhaustion day, "not enough data" under 14 days', () => {
  for (const t of truth.filter((x) => x.battery)) {
    const h = health.get(t.imei)!;
    const b = t.battery!;
    console.log(`battery-drain ${t.imei}: truth ${b.forecast} ${b.exhaustionDay}; forecast ${h.battery_status} ${h.battery_end_day}`);
    if (b.forecast === 'not_enough_data') { assert.is(h.battery_status, 'not_enough_data', t.imei); continue; }
    assert.is(h.battery_status === 'exhausted', b.forecast === 'exhausted', `${t.imei}: ${h.battery_status}`);
    assert.ok(h.battery_end_day !== null, `${t.imei}: ${h.battery_status}`);
    // ±10 % of the battery's simulated life (its first check-in to its exhaustion day).
    const first = scenarios.find((s) => s.name === t.scenario)!.messages.find((m) => m.device_data.IMEINumber === t.imei)!;
    const lifeDays = (dayStartMs(b.exhaustionDay) - Date.parse(String(first.device_data.date))) / DAY_MS;
    const offDays = Math.abs(dayStartMs(h.battery_end_day!) - dayStartMs(b.exhaustionDay)) / DAY_MS;
    assert.ok(offDays <= 0.1 * lifeDays, `${t.imei}: forecast ${h.battery_end_day}, simulated ${b.exhaustionDay} (${offDays} days off a life of ${lifeDays.toFixed(1)})`);
  }
});

test('RSSI decline: the signal trend says falling or weak as the truth says', () => {
  for (const t of truth.filter((x) => x.signal)) {
    console.log(`rssi-decline ${t.imei}: truth ${t.signal}; trend ${health.get(t.imei)?.signal}; silence ${labelOf(t.imei)}`);
    assert.is(health.get(t.imei)?.signal, t.signal, t.imei);
  }
});

test('firmware drift: device_drift holds exactly the drifts the truth says', () => {
  for (const t of truth.filter((x) => x.drift)) {
    const got = (drift.get(t.imei) ?? []).map((d) => ({ setting: d.setting, expected: d.expected, reported: d.reported, sinceDay: d.since_day }));
    assert.equal(got, t.drift, t.imei);
  }
});

test('the de-energised lateral opens exactly one possible de-energised section naming its point and devices; the carrier outage none', async () => {
  const lateral = truth.filter((t) => t.silence === 'deenergised');
  const { section, point } = lateral[0]!.together!;
  const rows = (await rig.db.pool.query<{ PowerLineID: string; point_imei: string; label: string; status: string; devices: { imei: string }[] }>(
    'select "PowerLineID", point_imei, label, status, devices from deenergised_sections order by id')).rows;
  console.log(`sections: ${rows.map((r) => `${r.label} at ${r.point_imei} (${r.devices.length} devices, ${r.status})`).join('; ') || 'none'}`);
  assert.equal(rows.map((r) => [r.point_imei, r.label, r.status, r.devices.map((d) => d.imei).sort()]), [[point, section, 'open', lateral.map((t) => t.imei).sort()]]);
  const carrier = truth.filter((t) => t.scenario === 'carrier-outage').map((t) => t.imei);
  assert.ok(rows.every((r) => r.devices.every((d) => !carrier.includes(d.imei))), 'no carrier device in a section');
});

test.run();
