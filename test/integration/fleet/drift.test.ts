// The fleet worker's drift step (fleet-health/drift.ts) against real Postgres: the firmware-drift scenario's
// group imported with its profile (migration 0036), its check-ins stored by the real persist path (which keeps
// device_health_days), then assessDrift: device_drift holds exactly the scenario's truth; again, the same; a run
// older than the window read keeps its day; a changed profile or a deleted device changes the rows.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { withTransaction } from '../../../db/transaction.js';
import { parseQueueMessage } from '../../../domain/validate-message.js';
import { assessDrift, DRIFT_WINDOW_DAYS } from '../../../fleet-health/drift.js';
import { importReferenceData } from '../../../reference-data/import.js';
import { fleetScenarios, scenarioImportFile } from '../../../simulator/fleet-scenarios/index.js';
import { persistBatch } from '../../../stages/persist/index.js';
import { computed } from '../../../support/checkins.js';
import { createTestDatabase, type TestDatabase } from '../../../support/database.js';

// The scenario ends an hour ago: the queue refuses check-ins dated ahead of now, persist takes any past date.
const END = Date.now() - 3_600_000;
const DAY = 86_400_000;
const [scenario] = fleetScenarios({ endMs: END, names: ['firmware-drift'] });
const ORG = { OrganizationID: 'north', name: 'North' };
const reference = () => ({ organizations: [ORG], ...scenarioImportFile([scenario!]) });

let db: TestDatabase;
test.before(async () => {
  db = await createTestDatabase('fleet-drift');
  await importReferenceData(db.pool, reference());
  const stored = scenario!.messages.map((m, i) => {
    const parsed = parseQueueMessage(JSON.stringify(m));
    if (!parsed.ok) throw new Error(parsed.reason);
    return computed(parsed.value, { messageId: `drift-${i}` });
  });
  for (let i = 0; i < stored.length; i += 500) await persistBatch(db.pool, stored.slice(i, i + 500));
});
test.after(async () => { await db?.drop(); });

interface Row { imei: string; setting: string; expected: string; reported: string; since: string }
const rows = async (): Promise<Row[]> => (await db.pool.query<Row>(
  `select "IMEINumber" as imei, setting, expected, reported, since_day::text as since from device_drift order by 1, 2`)).rows;
const assess = (at: number) => withTransaction(db.pool, (c) => assessDrift(c, new Date(at)));
const truth = (): Row[] => scenario!.truth.flatMap((t) => t.drift!.map((d) => ({ imei: t.imei, setting: d.setting, expected: d.expected, reported: d.reported, since: d.sinceDay })))
  .sort((a, b) => (a.imei + a.setting < b.imei + b.setting ? -1 : 1));

test('the firmware change on part of a group: device_drift is exactly the scenario\'s truth, and stays so when assessed again', async () => {
  assert.ok(truth().length >= 5);
  const first = await assess(END);
  assert.equal(first, { devices: scenario!.truth.length, drifts: truth().length });
  assert.equal(await rows(), truth());
  await assess(END + 60_000);
  assert.equal(await rows(), truth());
  const { rows: at } = await db.pool.query<{ n: number }>(`select count(*)::integer as n from device_drift where assessed_at = $1`, [new Date(END + 60_000)]);
  assert.is(at[0]!.n, truth().length, 'every row carries the latest assessment');
});

test(`a run that began before the ${DRIFT_WINDOW_DAYS} days read keeps the day recorded earlier; with no earlier row it starts at the window`, async () => {
  const later = END + 30 * DAY;
  await assess(later);
  assert.equal(await rows(), truth());
  await db.pool.query('delete from device_drift');
  await assess(later);
  const windowStart = new Date(Date.parse(`${new Date(later).toISOString().slice(0, 10)}T00:00:00Z`) - (DRIFT_WINDOW_DAYS - 1) * DAY).toISOString().slice(0, 10);
  const firstDayRead = (await db.pool.query<{ d: string }>(`select min(day)::text as d from device_health_days where day >= $1::date`, [windowStart])).rows[0]!.d;
  assert.equal(await rows(), truth().map((r) => ({ ...r, since: r.since < firstDayRead ? firstDayRead : r.since })));
  await db.pool.query('delete from device_drift');
  await assess(END);
});

test('a changed profile: drifts against the new value replace the old ones; a deleted device loses its rows', async () => {
  const file = reference();
  file.groups[0] = { ...file.groups[0]!, FirmwareVersion: '4.3.0' };
  await importReferenceData(db.pool, file);
  await assess(END);
  const after = await rows();
  const updated = new Set(truth().filter((r) => r.setting === 'version').map((r) => r.imei));
  assert.ok(after.filter((r) => r.setting === 'version').every((r) => !updated.has(r.imei) && r.expected === '4.3.0' && r.reported === '4.2.1'));
  assert.is(after.filter((r) => r.setting === 'version').length, scenario!.truth.length - updated.size);
  assert.equal(after.filter((r) => r.setting === 'Current_Reset'), truth().filter((r) => r.setting === 'Current_Reset'));

  const manual = truth().find((r) => r.setting === 'Current_Reset')!.imei;
  file.devices = file.devices.map((d) => (d.IMEINumber === manual ? { ...d, deleted: true } : d));
  await importReferenceData(db.pool, file);
  await assess(END);
  assert.equal((await rows()).filter((r) => r.imei === manual), []);
  // No profile at all: nothing drifts.
  file.groups[0] = { GroupID: file.groups[0]!.GroupID!, OrganizationID: 'north', name: 'Firmware crew' };
  await importReferenceData(db.pool, file);
  assert.equal(await assess(END), { devices: 0, drifts: 0 });
  assert.equal(await rows(), []);
});

test.run();
