// The fleet scenarios reach the demo and `faultline simulate` (docs/decisions.md#fleet-scenarios): the command
// writes their reference data as an import file that `faultline import` takes, then queues their histories in the
// spool inbox; the demo's seeding (DEMO_FLEET=1) imports every scenario into the demo organisation and queues
// every message, in device-time order by file name (the order the spool inbox reads).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { seedFleetScenarios } from '../../../cli/demo-fleet.js';
import { importReferenceData } from '../../../reference-data/import.js';
import { fleetScenarios } from '../../../simulator/fleet-scenarios/index.js';
import { createTestDatabase, type TestDatabase } from '../../../support/database.js';

const run = promisify(execFile);
const root = new URL('../../../', import.meta.url).pathname;
let db: TestDatabase;
let dir: string;
const faultline = (env: Record<string, string>, ...args: string[]) =>
  run(process.execPath, ['bin/faultline.js', ...args], { cwd: root, env: { ...process.env, DATABASE_URL: db.url, SQS_QUEUE_URL: '', LOG_LEVEL: 'warn', ...env }, maxBuffer: 1 << 24 });
const deviceCount = async () => Number((await db.pool.query<{ n: string }>('select count(*) as n from device_information')).rows[0]!.n);

test.before(async () => {
  db = await createTestDatabase('fleet-scenarios');
  dir = mkdtempSync(join(tmpdir(), 'fleet-scenarios-'));
  await importReferenceData(db.pool, { organizations: [{ OrganizationID: 'north', name: 'North' }] });
});
test.after(async () => { await db?.drop(); rmSync(dir, { recursive: true, force: true }); });

test('faultline simulate --scenario: the reference data as an import file faultline import takes, then the histories to the spool inbox', async () => {
  const file = join(dir, 'scenarios.json');
  const names = 'firmware-drift,never-commissioned';
  const wrote = await faultline({}, 'simulate', '--scenario', names, '--scenario-import', file);
  assert.match(wrote.stdout, /wrote the reference data of firmware-drift, never-commissioned/);
  const imported = await faultline({}, 'import', file);
  const expected = fleetScenarios({ endMs: Date.now(), names: ['firmware-drift', 'never-commissioned'] });
  const devices = expected.reduce((n, s) => n + s.truth.length, 0);
  assert.match(imported.stdout, new RegExp(`devices: ${devices} inserted`));
  const inbox = join(dir, 'cli-inbox');
  const sent = await faultline({ INBOX_DIR: inbox }, 'simulate', '--scenario', names, '--to', 'spool');
  const messages = expected.reduce((n, s) => n + s.messages.length, 0);
  assert.match(sent.stdout, new RegExp(`sent ${messages} messages of 2 scenarios`));
  assert.is(readdirSync(inbox).filter((f) => f.endsWith('.json')).length, messages);
  const unknown = await faultline({}, 'simulate', '--scenario', 'carrier').then(() => null, (err: { stderr: string }) => err.stderr);
  assert.match(unknown ?? '', /unknown scenario "carrier"; known: all, battery-drain/);
});

test('the demo seeding: every scenario imported into the demo organisation, every message queued in device-time order', async () => {
  const before = await deviceCount();
  const inbox = join(dir, 'demo-inbox');
  const endMs = Date.now() - 60_000;
  const summary = await seedFleetScenarios({ pool: db.pool, inboxDir: inbox, endMs });
  const scenarios = fleetScenarios({ endMs });
  const devices = scenarios.reduce((n, s) => n + s.truth.length, 0);
  // The two scenarios imported by the test above are already there (unchanged); the rest are new.
  assert.is(await deviceCount(), before + devices - 13);
  assert.match(summary, /fleet scenarios \(battery-drain, rssi-decline, carrier-outage, deenergised-lateral, never-commissioned, firmware-drift/);
  const files = readdirSync(inbox).filter((f) => f.endsWith('.json')).sort();
  assert.is(files.length, scenarios.reduce((n, s) => n + s.messages.length, 0));
  const dates = files.filter((_, i) => i % 97 === 0).map((f) => (JSON.parse(readFileSync(join(inbox, f), 'utf8')) as { device_data: { date: string } }).device_data.date);
  assert.equal(dates, [...dates].sort(), 'file names sort in device-time order');
  const { rows } = await db.pool.query<{ n: string }>(`select count(*) as n from groups where "FirmwareVersion" is not null`);
  assert.is(Number(rows[0]!.n), 1, 'the drifting group carries its profile');
});

test.run();
