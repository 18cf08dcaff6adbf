// The board (issue 32 point 1) in a real browser (Debian's chromium via playwright-core) against the real app:
// alarms raised by the alarm side of the notify stage (alarms/raise.ts), then a permanent fault on feeder
// north-F9 fed through the real pipeline and the incident worker while the board is open. The board updates
// without a reload, in priority order, with the count in the tab title and the optional sound; a whole feeder
// is acknowledged (and stays active: acknowledging never clears); shelving hides a maintenance alarm until the
// chosen time ends; a masked organisation's board names no fault class.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import { createApp } from '../../../api/app.js';
import { listen } from '../../../api/server.js';
import { applyCheckInAlarms, raiseAlarm } from '../../../alarms/raise.js';
import type { CheckInAlarms } from '../../../alarms/check-in-alarms.js';
import { withTransaction } from '../../../db/transaction.js';
import { FAULT_CODE_KINDS, kindOfCode } from '../../../domain/alarm-kinds.js';
import { priorityRank } from '../../../domain/board.js';
import { namesFaultClass } from '../../../domain/fault-masking.js';
import { startIncidentWorker } from '../../../incidents/worker.js';
import { ensurePortalBuilt } from '../../../portal/build.js';
import { importReferenceData } from '../../../reference-data/index.js';
import { localAvroCodec } from '../../../stages/runtime/codec.js';
import { memoryTransport } from '../../../stages/runtime/transport/memory.js';
import { createTestDatabase, type TestDatabase } from '../../../support/database.js';
import { startTestPipeline } from '../../../support/pipeline.js';
import { importDemoData } from '../../../support/reference-data.js';
import { JWT_SECRET, login, USERS } from '../api/seeded-api.js';
import { checkInAt, IMEI, topologyFile, type Name } from '../incidents/feeder.js';
import { assertNoPageErrors, ensureChromium, launch, screenshot, signIn, type Browser } from '../../../support/browser.js';

const portalDist = new URL('../../../portal/dist/', import.meta.url).pathname;
const MIN = 60_000;
const TEMPORARY = '861000000000000'; // north-east
const BATTERY = '861000000000200'; // north-east: low battery, a maintenance alarm
const SILENT = '861000000000100'; // north-east: communication lost
const START = Date.now() - 60 * MIN;
let db: TestDatabase;
let app: ReturnType<typeof createApp>;
let server: { port: number; close(): Promise<void> };
let base: string;
let clockOffset = 0;
let page: Page;
const browsers: Browser[] = [];
const feederCheckIn = checkInAt(Date.now() - 30 * MIN);

async function lineOf(imei: string): Promise<string> {
  return (await db.pool.query<{ l: string }>('select "PowerLineID" as l from device_information where "IMEINumber" = $1', [imei])).rows[0]!.l;
}

async function checkIn(imei: string, atMs: number, code: number): Promise<void> {
  const kind = kindOfCode(code);
  const item: CheckInAlarms = {
    IMEINumber: imei, OrganizationID: 'north', PowerLineID: await lineOf(imei), deviceName: null, date: new Date(atMs).toISOString(), code,
    transition: { raise: kind, end: FAULT_CODE_KINDS.filter((k) => k !== kind) }, modelChange: null,
  };
  await applyCheckInAlarms(db.pool, [item], atMs);
}

const alarmOf = async (imei: string, kind: string) => (await db.pool.query<{ id: string; acknowledged_at: Date | null; cleared_at: Date | null }>(
  'select id, acknowledged_at, cleared_at from alarms where "IMEINumber" = $1 and kind = $2 order by id desc limit 1', [imei, kind])).rows[0]!;

async function feed(messages: { name: string; body: string }[]): Promise<void> {
  const transport = memoryTransport({ codec: localAvroCodec(), partitions: 4 });
  const pipe = await startTestPipeline(transport, db.pool);
  try {
    for (const m of messages) await pipe.feed([m]);
    await pipe.drain();
  } finally {
    await pipe.stop();
    await transport.close();
  }
}

async function browserAs(user: keyof typeof USERS): Promise<Page> {
  const b = await launch({ width: 1440, height: 1000 });
  browsers.push(b);
  await signIn(b.page, base, USERS[user]);
  return b.page;
}

/** The board's items as shown: type, id, priority, state, class. */
async function items(p: Page, list = 'board-items') {
  return p.getByTestId(list).locator('[data-testid="board-item"]').evaluateAll((els) => els.map((e) => ({
    type: e.getAttribute('data-type')!, id: Number(e.getAttribute('data-id')), priority: e.getAttribute('data-priority')!,
    state: e.getAttribute('data-state'), cls: e.getAttribute('data-class'),
  })));
}

/** Waits, without reloading, until the board shows what `ok` wants. */
async function until(p: Page, what: string, ok: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`the board never showed ${what}`);
    await p.waitForTimeout(250);
  }
}
const shows = async (p: Page, id: string | number, list = 'board-items') => (await p.getByTestId(list).count()) > 0 && (await items(p, list)).some((i) => i.type === 'alarm' && i.id === Number(id));

test.before(async () => {
  ensureChromium();
  await ensurePortalBuilt();
  db = await createTestDatabase('portal_board');
  await importDemoData(db.pool);
  await importReferenceData(db.pool, topologyFile());
  await feed((Object.keys(IMEI) as Name[]).map((n) => feederCheckIn(n, 0, 0)));
  await checkIn(TEMPORARY, START, 2);
  await checkIn(BATTERY, START + MIN, 402);
  const silentLine = await lineOf(SILENT);
  await withTransaction(db.pool, (client) => raiseAlarm(client, {
    OrganizationID: 'north', IMEINumber: SILENT, PowerLineID: silentLine, kind: 'communication-lost', episode: new Date(START).toISOString(), detail: {},
  }, START + 2 * MIN));
  // accountCacheMs 0: MaskFaultDetails is read on every request, so the masked test can switch it.
  app = createApp({ readiness: {}, pool: db.pool, jwtSecret: JWT_SECRET, portalDir: portalDist, accountCacheMs: 0, now: () => Date.now() + clockOffset });
  server = await listen(app, { port: 0, hostname: '127.0.0.1' });
  base = `http://127.0.0.1:${server.port}`;
});

test.after.each(() => assertNoPageErrors());
test.after(async () => {
  for (const b of browsers) await b.close();
  await server?.close();
  await db?.drop();
});

test('the board is the landing view; a fault through the pipeline appears without a reload, by priority, counted in the title, with the sound', async () => {
  page = await browserAs('northAdmin');
  assert.is(new URL(page.url()).pathname, '/board');
  await until(page, 'the three alarms', async () => (await items(page)).length === 3);
  assert.equal((await items(page)).map((i) => i.priority), ['high', 'medium', 'low'], 'communication lost, temporary, low battery');
  assert.match(await page.title(), /^\(3\) Board/);
  await page.getByTestId('board-sound').check();

  await feed((['H', 'T1', 'LA1'] as Name[]).map((n) => feederCheckIn(n, 10, 4, [{ type: 'PFault', atMin: 9.5 }])));
  await startIncidentWorker({ pool: db.pool }, { loop: false }).runOnce();
  await until(page, 'the incident', async () => (await items(page)).some((i) => i.type === 'incident'));
  await until(page, 'the three permanent alarms', async () => (await items(page)).filter((i) => i.priority === 'critical' && i.type === 'alarm').length === 3);
  const shown = await items(page);
  assert.is(shown[0]!.type, 'incident', 'the active incident leads');
  const ranks = shown.map((i) => priorityRank(i.priority as 'low'));
  assert.equal(ranks, [...ranks].sort((a, b) => a - b), `sorted by priority: ${shown.map((i) => i.priority).join(', ')}`);
  assert.match(await page.getByTestId('board-items').locator('[data-type="incident"]').innerText(), /Lateral A \(phase A, below F9 LA1, above F9 LA2\)/);
  await until(page, 'the count in the title', async () => (await page.title()).startsWith(`(${shown.length}) Board`));
  assert.ok(Number(await page.getByTestId('board-sound').getAttribute('data-played')) >= 1, 'the sound played for the new critical items');
  await screenshot(page, 'board');
});

test('acknowledging a whole feeder: its alarms move to "acknowledged, still active" and none is cleared', async () => {
  await page.locator('button[data-feeder="north-F9"]').click();
  await until(page, 'F9 acknowledged', async () => (await items(page)).filter((i) => i.type === 'alarm' && i.priority === 'critical').length === 0);
  const acked = await items(page, 'board-acknowledged');
  assert.is(acked.length, 3);
  assert.ok(acked.every((a) => a.state === 'acknowledged-active'));
  for (const n of ['H', 'T1', 'LA1'] as Name[]) {
    const a = await alarmOf(IMEI[n], 'permanent');
    assert.ok(a.acknowledged_at !== null && a.cleared_at === null, `${n}: acknowledged, not cleared`);
  }
  assert.is((await alarmOf(TEMPORARY, 'temporary')).acknowledged_at, null, 'another feeder\'s alarm is left alone');
  assert.ok((await items(page)).some((i) => i.type === 'incident'), 'the incident stays while it is active');
});

test('acknowledge does not clear: the alarm clears when its condition does; a cleared unacknowledged alarm still asks', async () => {
  const temporary = await alarmOf(TEMPORARY, 'temporary');
  await page.getByRole('button', { name: `Acknowledge alarm ${temporary.id}` }).click();
  await until(page, 'the acknowledged alarm', () => shows(page, temporary.id, 'board-acknowledged'));
  assert.is((await alarmOf(TEMPORARY, 'temporary')).cleared_at, null, 'acknowledged, still active');
  await checkIn(TEMPORARY, Date.now(), 0);
  assert.ok((await alarmOf(TEMPORARY, 'temporary')).cleared_at, 'a check-in without the fault clears it');
  await until(page, 'the alarm gone once normal', async () => !(await shows(page, temporary.id, 'board-acknowledged')) && !(await shows(page, temporary.id)));

  const silent = await alarmOf(SILENT, 'communication-lost');
  await checkIn(SILENT, Date.now(), 0);
  await until(page, 'returned to normal, not acknowledged', async () => (await items(page)).some((i) => i.id === Number(silent.id) && i.state === 'unacknowledged-cleared'));
  await page.getByRole('button', { name: `Acknowledge alarm ${silent.id}` }).click();
  await until(page, 'the acknowledged cleared alarm gone', async () => !(await shows(page, silent.id)));
});

test('shelving: a maintenance alarm leaves the board for the chosen time and comes back; unshelve; operations alarms cannot be shelved', async () => {
  const battery = await alarmOf(BATTERY, 'low-battery');
  const row = page.locator(`[data-testid="board-item"][data-type="alarm"][data-id="${battery.id}"]`);
  assert.is(await row.getAttribute('data-class'), 'maintenance');
  const incident = page.getByTestId('board-items').locator('[data-type="incident"]');
  assert.is(await incident.getByRole('button', { name: 'Shelve' }).count(), 0);
  await row.getByLabel(/Shelve for how long/).selectOption(String(60));
  await row.getByRole('button', { name: 'Shelve' }).click();
  await until(page, 'the shelved alarm off the board', async () => !(await shows(page, battery.id)));
  assert.match(await page.getByTestId('shelved').innerText(), /until/);
  // The shelving ends by itself: an hour and a minute later on the service's clock, the alarm is back.
  clockOffset = 61 * MIN;
  await until(page, 'the alarm back after the shelving', () => shows(page, battery.id));
  assert.is(await page.getByTestId('shelved').count(), 0);
  clockOffset = 0;
  await row.getByRole('button', { name: 'Shelve' }).click();
  await until(page, 'shelved again', async () => !(await shows(page, battery.id)));
  await page.getByTestId('shelved').getByRole('button', { name: 'Unshelve' }).click();
  await until(page, 'back after unshelve', () => shows(page, battery.id));
  const res = await app.request(`/api/alarms/${(await alarmOf(IMEI.H, 'permanent')).id}/shelve`, {
    method: 'POST', headers: { authorization: `Bearer ${await login(app, 'northAdmin')}`, 'content-type': 'application/json' }, body: JSON.stringify({ minutes: 60 }),
  });
  assert.is(res.status, 409, 'an operations alarm is not shelved');
});

test('alarm classes: the filter keeps one class (incidents are operations)', async () => {
  await page.getByLabel('Alarm class').selectOption('maintenance');
  await page.waitForURL(`${base}/board?class=maintenance`);
  await until(page, 'maintenance only', async () => { const i = await items(page); return i.length > 0 && i.every((x) => x.cls === 'maintenance'); });
  await page.getByLabel('Alarm class').selectOption('operations');
  await until(page, 'operations only', async () => { const i = await items(page); return i.some((x) => x.type === 'incident') && i.every((x) => x.type === 'incident' || x.cls === 'operations'); });
});

test('polling: an unchanged board is a 304 for its ETag', async () => {
  const headers = { authorization: `Bearer ${await login(app, 'northAdmin')}` };
  const first = await app.request('/api/board', { headers });
  const etag = first.headers.get('etag')!;
  assert.ok(etag);
  assert.is((await app.request('/api/board', { headers: { ...headers, 'if-none-match': etag } })).status, 304);
  await checkIn(TEMPORARY, Date.now(), 2);
  assert.is((await app.request('/api/board', { headers: { ...headers, 'if-none-match': etag } })).status, 200, 'a new alarm changes the ETag');
});

test('a masked organisation\'s board names no fault class (the walk of every view covers it too)', async () => {
  await db.pool.query('update organizations set "MaskFaultDetails" = true where "OrganizationID" = \'north\'');
  try {
    for (const user of ['northAdmin', 'northEast'] as const) {
      const p = await browserAs(user);
      await until(p, 'the incident', async () => (await items(p)).some((i) => i.type === 'incident'));
      const text = await p.locator('main').innerText();
      assert.not.ok(namesFaultClass(text), `${user}: ${text}`);
      assert.match(text, /fault on Feeder 9/);
      const critical = await items(p, 'board-acknowledged');
      assert.ok(critical.every((i) => i.priority === 'critical'), 'every class alarm has the one masked priority');
      const answer = await (await app.request('/api/board', { headers: { authorization: `Bearer ${await login(app, user)}` } })).text();
      assert.not.ok(namesFaultClass(answer), answer);
      if (user === 'northAdmin') await screenshot(p, 'board-masked');
    }
  } finally {
    await db.pool.query('update organizations set "MaskFaultDetails" = false where "OrganizationID" = \'north\'');
  }
});

test.run();
