// A hostile review found the plannedPerRequest sibling's prepared names (prepared.ts preparedPerRequest,
// MAX_PREPARED_TEXTS) minted one per request: a ranged critical-data keyset page spelled its cursor's instant into its
// text, so each page (or each forged `after`) was a new text and a new name, and 200 of them filled the process's cap
// for good: every tenant's ranged and deep pages then went unnamed to the main pool. The cursor is a marker now
// (critical-data.ts CURSOR_AT). This test pages one tenant's ranged critical-data with 201 cursors, then asks another
// route's deep page: it must still be prepared by name on the sibling.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { encodeCursor } from '../../../api/device-records/keyset.js';
import { MAX_PREPARED_TEXTS } from '../../../api/device-records/prepared.js';
import { addMonths, monthOfMs } from '../../../domain/storage-months.js';
import { createTestDatabase, type TestDatabase } from '../../../support/database.js';
import { generateDeviceData, registerDevices } from '../../../support/device-data.js';
import { importDemoData } from '../../../support/reference-data.js';
import { printHookErrors } from '../../helpers/hook-errors.js';
import { recordingPool, type SentStatement } from '../../helpers/recording-pool.js';
import { zonedCaller } from '../../helpers/zoned-caller.js';

const test = printHookErrors(suite('per-request prepared names: one per form, not one per cursor'));
const PREFIX = '8691320';
const sent: SentStatement[] = [];
let db: TestDatabase;
let get: (path: string) => Promise<{ status: number; body: { next?: string } }>;

test.before(async () => {
  db = await createTestDatabase('per_request_cap');
  await importDemoData(db.pool);
  await registerDevices(db.pool, { prefix: PREFIX, devices: 2, org: 'north', powerLines: ['north-F12', 'north-F7'], groups: ['north-east', 'north-west'] });
  await generateDeviceData(db.pool, { prefix: PREFIX, devices: 2, count: 600, months: [addMonths(monthOfMs(Date.now()), -1)] });
  get = await zonedCaller(db.pool, 'admin', 'UTC', { now: () => Date.now(), appPool: recordingPool(db.pool, (s) => sent.push(s)) });
});
test.after(async () => { await db?.drop(); });

test('201 ranged critical-data keyset pages leave the sibling a name for the next deep data-log page', async () => {
  const minted = new Set<string>();
  for (let i = 0; i <= MAX_PREPARED_TEXTS; i++) {
    sent.length = 0;
    const at = new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString().replace('T', ' ').replace('Z', '+00');
    const r = await get(`/device-records/critical-data?from=20200101&to=20291231&after=${encodeCursor([at.replace(/\.\d+/, ''), 'event', '1'])}`);
    assert.is(r.status, 200);
    for (const s of sent) if (s.plannedPerRequest && s.name) minted.add(s.name);
  }
  console.log(`  names minted by ${MAX_PREPARED_TEXTS + 1} pages of one list: ${minted.size}`);
  sent.length = 0;
  assert.is((await get('/device-records/data-log?page=2&limit=10&from=20200101&to=20291231')).status, 200);
  const page = sent.find((s) => s.rowMode === 'array')!;
  assert.ok(page.plannedPerRequest && page.name, `the deep data-log page went ${page.plannedPerRequest ? 'to the sibling' : 'to the main pool'} ${page.name ? 'named' : 'unnamed, its values spelled in'}`);
});

test.run();
