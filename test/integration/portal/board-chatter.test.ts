// Chattering alarms collapse (issue 43 point 5, "Done when": toggling one device's fault 50 times in ten minutes
// leaves one board row with its count), in a real browser (Debian's chromium via playwright-core) against the
// real app: 100 check-ins of one indicator, a temporary fault with its TFault event and then none, fifty
// times within ten minutes of device time, through the real pipeline into Postgres. The board shows one row
// with the count, the first and last raise, and shelves it with one click; the incident worker's round turns
// the same chatter into momentary incidents below the indicator, and so into the section's hot-spot alarm,
// shown in the maintenance class below the live faults.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import { createApp } from '../../../api/app.js';
import { listen } from '../../../api/server.js';
import { RECURRING_SECTION } from '../../../domain/alarm-kinds.js';
import { startIncidentWorker } from '../../../incidents/worker.js';
import { ensurePortalBuilt } from '../../../portal/build.js';
import { importReferenceData } from '../../../reference-data/index.js';
import { localAvroCodec } from '../../../stages/runtime/codec.js';
import { memoryTransport } from '../../../stages/runtime/transport/memory.js';
import { createTestDatabase, type TestDatabase } from '../../../support/database.js';
import { startTestPipeline } from '../../../support/pipeline.js';
import { importDemoData } from '../../../support/reference-data.js';
import { JWT_SECRET, USERS } from '../api/seeded-api.js';
import { checkInAt, IMEI, topologyFile, type Name } from '../incidents/feeder.js';
import { assertNoPageErrors, ensureChromium, launch, screenshot, signIn, type Browser } from '../../../support/browser.js';

const portalDist = new URL('../../../portal/dist/', import.meta.url).pathname;
const TOGGLES = 50;
let db: TestDatabase;
let server: { port: number; close(): Promise<void> };
let base: string;
let browser: Browser;
let page: Page;

async function feed(messages: { name: string; body: string }[]): Promise<void> {
  const transport = memoryTransport({ codec: localAvroCodec(), partitions: 4 });
  const pipe = await startTestPipeline(transport, db.pool);
  try {
    await pipe.feed(messages);
    await pipe.drain(120_000);
  } finally {
    await pipe.stop();
    await transport.close();
  }
}

/** The alarm rows of the board (every list) as shown: id, kind label, class, priority, episodes. */
async function alarmRows(p: Page) {
  return p.locator('[data-testid="board-item"][data-type="alarm"]').evaluateAll((els) => els.map((e) => ({
    id: Number(e.getAttribute('data-id')), episodes: Number(e.getAttribute('data-episodes')), cls: e.getAttribute('data-class'),
    priority: e.getAttribute('data-priority'), text: e.textContent ?? '',
  })));
}

async function until(p: Page, what: string, ok: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`the board never showed ${what}`);
    await p.waitForTimeout(250);
  }
}

test.before(async () => {
  ensureChromium();
  await ensurePortalBuilt();
  db = await createTestDatabase('portal_chatter');
  await importDemoData(db.pool);
  await importReferenceData(db.pool, topologyFile());
  const start = Date.now() - 15 * 60_000;
  const checkIn = checkInAt(start);
  await feed((Object.keys(IMEI) as Name[]).map((n) => checkIn(n, 0, 0)));
  // Fifty toggles in ten minutes: raised (code 2, a TFault) and cleared (code 0) every 12 s.
  const toggles: { name: string; body: string }[] = [];
  for (let i = 0; i < TOGGLES; i++) {
    const at = 1 + (i * 10) / TOGGLES;
    toggles.push(checkIn('LA1', at, 2, [{ type: 'TFault', atMin: at - 0.02 }]), checkIn('LA1', at + 0.1, 0));
  }
  await feed(toggles);
  const app = createApp({ readiness: {}, pool: db.pool, jwtSecret: JWT_SECRET, portalDir: portalDist });
  server = await listen(app, { port: 0, hostname: '127.0.0.1' });
  base = `http://127.0.0.1:${server.port}`;
  browser = await launch({ width: 1440, height: 1000 });
  page = browser.page;
  await signIn(page, base, USERS.northAdmin);
});

test.after.each(() => assertNoPageErrors());
test.after(async () => {
  await browser?.close();
  await server?.close();
  await db?.drop();
});

test('fifty toggles of one indicator in ten minutes: one board row with its count, first and last raise', async () => {
  const stored = (await db.pool.query<{ id: string; chatter_count: number; raised_at: Date; last_raised_at: Date | null }>(
    `select id, chatter_count, raised_at, last_raised_at from alarms where "IMEINumber" = $1 and kind = 'temporary'`, [IMEI.LA1])).rows;
  assert.is(stored.length, 1, `one alarm row, not one per episode (${stored.length})`);
  assert.is(stored[0]!.chatter_count, TOGGLES);
  const raised = (await db.pool.query<{ n: number }>(`select count(*)::int as n from alarm_changes where alarm_id = $1 and change = 'raised'`, [stored[0]!.id])).rows[0]!.n;
  assert.is(raised, 1, 'routing hears the chattering alarm once');

  await until(page, 'the chattering row', async () => (await alarmRows(page)).some((r) => r.id === Number(stored[0]!.id)));
  const rows = (await alarmRows(page)).filter((r) => r.text.includes('F9 LA1'));
  assert.is(rows.length, 1, rows.map((r) => r.text).join('\n'));
  assert.is(rows[0]!.episodes, TOGGLES);
  const chatter = page.locator(`[data-testid="board-item"][data-id="${stored[0]!.id}"] [data-testid="alarm-chatter"]`);
  const text = await chatter.innerText();
  assert.match(text, /^Chattering: raised 50 times, first .+, last .+ \(device clock\)$/);
  const [first, last] = [...text.matchAll(/(\d\d:\d\d:\d\d)/g)].map((m) => m[1]);
  assert.ok(first !== last, `the first and last episode's device times: ${text}`);
});

test('the chatter counts toward its section\'s hot spot: one incident round raises recurring-section, maintenance, below the live faults', async () => {
  await startIncidentWorker({ pool: db.pool }, { loop: false }).runOnce();
  const incidents = (await db.pool.query<{ n: number }>(`select count(*)::int as n from incidents where kind = 'momentary' and sections->0->'from'->>'imei' = $1`, [IMEI.LA1])).rows[0]!.n;
  assert.ok(incidents >= 3, `momentary incidents below LA1: ${incidents}`);
  const [hot] = (await db.pool.query<{ id: string; detail: { count: number; summary: string } }>(`select id, detail from alarms where kind = $1 and "IMEINumber" = $2`, [RECURRING_SECTION, IMEI.LA1])).rows;
  assert.ok(hot, 'the section below LA1 is a hot spot');
  assert.is(hot!.detail.count, incidents);
  await until(page, 'the hot-spot row', async () => (await alarmRows(page)).some((r) => r.id === Number(hot!.id)));
  const rows = await alarmRows(page);
  const row = rows.find((r) => r.id === Number(hot!.id))!;
  assert.equal([row.cls, row.priority], ['maintenance', 'low']);
  assert.match(row.text, `${incidents} momentary incidents within 30 days in section Lateral A`);
  assert.is(rows[rows.length - 1]!.id, row.id, 'below every live fault');
  await screenshot(page, 'board-chatter');
});

test('one click shelves the chattering row (an operations alarm, shelvable because it chatters)', async () => {
  const [a] = (await db.pool.query<{ id: string; class: string | null }>(`select id, class from alarms where "IMEINumber" = $1 and kind = 'temporary'`, [IMEI.LA1])).rows;
  const row = page.locator(`[data-testid="board-item"][data-type="alarm"][data-id="${a!.id}"]`);
  assert.is(await row.getAttribute('data-class'), 'operations');
  await row.getByRole('button', { name: 'Shelve' }).click();
  await until(page, 'the chattering row shelved', async () => !(await alarmRows(page)).some((r) => r.id === Number(a!.id)));
  const shelf = page.getByTestId('shelved').locator(`[data-imei="${IMEI.LA1}"][data-kind="temporary"]`);
  assert.is(await shelf.count(), 1);
});

test.run();
