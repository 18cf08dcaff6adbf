// The router and the communication-lost clock on a controlled clock (issue 20 "Done when"): simulated days of
// check-ins with the clock run by two processes at once (one alarm per device and outage); caps per recipient;
// the storm digest and its closing summary; acknowledgement; escalation along a roster.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import type pg from 'pg';
import { loadAlarmSettings, type AlarmSettings } from '../../../config/settings.js';
import { applyCheckInAlarms } from '../../../alarms/raise.js';
import { routeAlarms } from '../../../alarms/router.js';
import type { CheckInAlarms } from '../../../alarms/check-in-alarms.js';
import { FAULT_CODE_KINDS } from '../../../domain/alarm-kinds.js';
import { createTestDatabase, type TestDatabase } from '../../../support/database.js';
import { importDemoData } from '../../../support/reference-data.js';
import { importAlarms } from '../../../support/alarm-setup.js';

const test = suite('alarm routing and the communication-lost clock');
const root = new URL('../../../', import.meta.url).pathname;
const A = '861000000000000';
const B = '861000000000100';
const T0 = Date.UTC(2026, 0, 5, 0, 0, 0); // a Monday
const MIN = 60_000;
const HOUR = 3_600_000;
let db: TestDatabase;

function checkIn(imei: string, atMs: number, code = 0, previous: number | null = 0): CheckInAlarms {
  const kind = (c: number | null) => ({ 4: 'permanent', 2: 'temporary' } as Record<number, string>)[c ?? 0] ?? null;
  const changed = previous === null ? kind(code) !== null : kind(code) !== kind(previous);
  return {
    IMEINumber: imei, OrganizationID: 'north', PowerLineID: imei === A ? 'north-F12' : 'north-F7', deviceName: null, date: new Date(atMs).toISOString(), code,
    transition: changed ? { raise: kind(code), end: FAULT_CODE_KINDS.filter((k) => k !== kind(code)) } : null, modelChange: null,
  };
}

interface Proc { child: ChildProcess; tick(nowMs: number): Promise<number> }
function clockProcess(url: string): Proc {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/integration/alarms/clock-process.ts'], { cwd: root, env: { ...process.env, DATABASE_URL: url, LOG_LEVEL: 'warn' }, stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  return {
    child,
    async tick(nowMs) {
      child.stdin!.write(`${nowMs}\n`);
      const { value } = await lines.next();
      return Number(String(value).split(' ')[1]);
    },
  };
}

const count = async (pool: pg.Pool, sql: string, params: unknown[] = []) => (await pool.query<{ n: number }>(`select count(*)::int as n ${sql}`, params)).rows[0]!.n;

test.before(async () => {
  db = await createTestDatabase('alarmrouting');
  await importDemoData(db.pool);
});
test.after.each(async () => { await db.pool.query('delete from alarm_rules; delete from alarm_outbox; delete from alarm_recipients; delete from alarm_storms; delete from alarms; delete from checkin_clock'); });
test.after(async () => { await db?.drop(); });

test('communication lost over simulated days, two processes: learned interval, one alarm per outage, the next check-in clears', async () => {
  await importAlarms(db.pool, {
    recipients: [{ id: 'r-desk', OrganizationID: 'north', channel: 'email', address: 'desk@north.example' }],
    rules: [{ id: 'r-comm', OrganizationID: 'north', class: 'maintenance', what: ['communication-lost'], where: { devices: [A, B] }, who: ['r-desk'] }],
  });
  const [p1, p2] = [clockProcess(db.url), clockProcess(db.url)];
  try {
    // A checks in every 15 minutes, B every hour; for three days, with the two processes ticking every 5
    // minutes of simulated time. A falls silent for 2 h on day 2 (raised after 2 x 15 min), B for 4 h on day 3.
    const silentA = [T0 + 30 * HOUR, T0 + 32 * HOUR];
    const silentB = [T0 + 60 * HOUR, T0 + 64 * HOUR];
    let raisedA: number | null = null;
    let raisedB: number | null = null;
    for (let t = T0; t <= T0 + 72 * HOUR; t += 5 * MIN) {
      const batch: CheckInAlarms[] = [];
      if (t % (15 * MIN) === 0 && !(t > silentA[0]! && t < silentA[1]!)) batch.push(checkIn(A, t));
      if (t % HOUR === 0 && !(t > silentB[0]! && t < silentB[1]!)) batch.push(checkIn(B, t));
      await applyCheckInAlarms(db.pool, batch, t);
      const [n1, n2] = await Promise.all([p1.tick(t), p2.tick(t)]);
      assert.ok(n1 + n2 <= 1, `at most one alarm raised per tick, got ${n1} + ${n2}`);
      const open = (await db.pool.query<{ IMEINumber: string }>(`select "IMEINumber" from alarms where kind = 'communication-lost' and cleared_at is null`)).rows.map((r) => r.IMEINumber);
      if (open.includes(A) && raisedA === null) raisedA = t;
      if (open.includes(B) && raisedB === null) raisedB = t;
    }
    // Two missed intervals: A (15 min) is raised 30 min after its last check-in (+ one tick), B (1 h) after 2 h.
    assert.ok(raisedA! > silentA[0]! + 30 * MIN && raisedA! <= silentA[0]! + 35 * MIN, `A raised at +${(raisedA! - silentA[0]!) / MIN} min`);
    assert.ok(raisedB! > silentB[0]! + 2 * HOUR && raisedB! <= silentB[0]! + 2 * HOUR + 5 * MIN, `B raised at +${(raisedB! - silentB[0]!) / MIN} min`);
    const rows = (await db.pool.query<{ IMEINumber: string; cleared: boolean }>(`select "IMEINumber", cleared_at is not null as cleared from alarms where kind = 'communication-lost' order by id`)).rows;
    assert.equal(rows, [{ IMEINumber: A, cleared: true }, { IMEINumber: B, cleared: true }], 'exactly one alarm per device and outage, each cleared');
    const clock = (await db.pool.query<{ e: number }>(`select expected_interval_s as e from checkin_clock where "IMEINumber" = $1`, [A])).rows[0]!;
    assert.is(clock.e, 900, 'A\'s interval learned as 15 minutes');
    assert.is(await count(db.pool, `from alarm_outbox where kind = 'raised'`), 2);
    assert.is(await count(db.pool, `from alarm_outbox where kind = 'cleared'`), 2);
  } finally {
    for (const p of [p1, p2]) { p.child.stdin!.end('exit\n'); }
  }
});

const settings = (over: Record<string, string> = {}): AlarmSettings => loadAlarmSettings({ ALARM_STORM_THRESHOLD: '5', ALARM_STORM_WINDOW_MINUTES: '10', ALARM_RECIPIENT_CAP_PER_DAY: '3', PORTAL_URL: 'https://portal.example', ...over });

test('caps: a recipient gets at most its cap in 24 h; the rest are kept, marked, and not sent', async () => {
  await importAlarms(db.pool, {
    recipients: [{ id: 'r-capped', OrganizationID: 'north', channel: 'sms', address: '+15550111', capPerDay: 2 }, { id: 'r-default', OrganizationID: 'north', channel: 'email', address: 'x@north.example' }],
    rules: [{ id: 'r-faults', OrganizationID: 'north', class: 'operations', what: ['permanent', 'temporary'], who: ['r-capped', 'r-default'] }],
  });
  const s = settings();
  // Four raises of A one hour apart (permanent, then temporary, ...): below the storm threshold.
  for (let i = 0; i < 4; i++) {
    const t = T0 + 100 * HOUR + i * HOUR;
    await applyCheckInAlarms(db.pool, [checkIn(A, t, i % 2 ? 2 : 4, i === 0 ? 0 : (i % 2 ? 4 : 2))], t);
    await routeAlarms(db.pool, s, t + MIN);
  }
  // Every message counts toward the cap (raises and clears alike); only raises are held back.
  const sent = async (r: string) => count(db.pool, `from alarm_outbox where recipient_id = $1 and suppressed is null`, [r]);
  assert.is(await sent('r-capped'), 2, 'the recipient\'s own cap');
  // ALARM_RECIPIENT_CAP_PER_DAY (3): two raises and their clears (an end always reaches whoever heard the raise).
  assert.is(await count(db.pool, `from alarm_outbox where recipient_id = 'r-default' and kind = 'raised' and suppressed is null`), 2);
  assert.is(await sent('r-default'), 4);
  assert.ok(await count(db.pool, `from alarm_outbox where suppressed = 'cap' and recipient_id = 'r-capped'`) >= 1, 'held back raises are kept and marked');
  // A day later the cap has room again.
  const t = T0 + 130 * HOUR;
  await applyCheckInAlarms(db.pool, [checkIn(A, t, 4, 2)], t);
  await routeAlarms(db.pool, s, t + MIN);
  assert.is(await count(db.pool, `from alarm_outbox where recipient_id = 'r-capped' and suppressed is null and created_at > $1`, [new Date(t)]), 1);
});

test('storm: above N alarms in M minutes one digest per interval with counts by power line and class, then a closing summary', async () => {
  await importAlarms(db.pool, {
    recipients: [{ id: 'r-storm', OrganizationID: 'north', channel: 'webhook', address: 'https://hooks.example/x' }],
    rules: [{ id: 'r-storm-rule', OrganizationID: 'north', class: 'operations', what: ['permanent', 'communication-lost'], who: ['r-storm'] }],
  });
  const s = settings({ ALARM_RECIPIENT_CAP_PER_DAY: '1000' });
  const t = T0 + 200 * HOUR;
  // 8 devices' worth of alarms: the two real devices plus six raised directly (the clock would raise them too).
  const devices = Array.from({ length: 8 }, (_, i) => `86100000000${String(9000 + i)}`);
  for (const imei of devices) {
    await db.pool.query(`insert into alarms ("OrganizationID", "IMEINumber", kind, episode, "PowerLineID", raised_at) values ('north', $1, 'permanent', $2, $3, $4)`, [imei, new Date(t).toISOString(), imei.endsWith('0') ? 'north-F7' : 'north-F12', new Date(t)]);
    await db.pool.query(`insert into alarm_changes (alarm_id, change, at) select id, 'raised', raised_at from alarms where "IMEINumber" = $1`, [imei]);
  }
  let r = await routeAlarms(db.pool, s, t + MIN);
  assert.is(r.messages, 1, 'the storm starts: one digest instead of eight messages');
  assert.is(await count(db.pool, `from alarm_outbox where kind = 'raised'`), 0);
  assert.is(await count(db.pool, 'from alarm_storms'), 1);
  // Still stormy in the next window: six more.
  for (const imei of devices.slice(0, 6)) {
    await db.pool.query(`update alarms set cleared_at = $2 where "IMEINumber" = $1 and cleared_at is null`, [imei, new Date(t + 4 * MIN)]);
    await db.pool.query(`insert into alarms ("OrganizationID", "IMEINumber", kind, episode, "PowerLineID", raised_at) values ('north', $1, 'communication-lost', $2, 'north-F12', $3)`, [imei, new Date(t + 5 * MIN).toISOString(), new Date(t + 5 * MIN)]);
    await db.pool.query(`insert into alarm_changes (alarm_id, change, at) select id, 'raised', raised_at from alarms where "IMEINumber" = $1 and kind = 'communication-lost'`, [imei]);
  }
  r = await routeAlarms(db.pool, s, t + 11 * MIN);
  assert.is(r.messages, 1, 'one digest for the interval');
  const digest = (await db.pool.query<{ kind: string; payload: { total: number; counts: { PowerLineID: string; class: string; count: number }[]; link: string } }>(`select kind, payload from alarm_outbox where kind like 'digest%' order by id`)).rows;
  assert.is(digest.length, 2);
  assert.is(digest[0]!.payload.total, 8);
  assert.equal(digest[0]!.payload.counts, [{ PowerLineID: 'north-F12', class: 'operations', count: 7 }, { PowerLineID: 'north-F7', class: 'operations', count: 1 }]);
  assert.is(digest[0]!.payload.link, 'https://portal.example/alarms');
  assert.is(digest[1]!.payload.total, 6);
  assert.equal(digest[1]!.payload.counts, [{ PowerLineID: 'north-F12', class: 'operations', count: 6 }]);
  // Calm for a whole window: the closing summary, and the storm is over.
  await routeAlarms(db.pool, s, t + 25 * MIN);
  const kinds = (await db.pool.query<{ kind: string }>(`select kind from alarm_outbox where kind like 'digest%' order by id`)).rows.map((x) => x.kind);
  assert.equal(kinds, ['digest', 'digest', 'digest-end']);
  assert.is(await count(db.pool, 'from alarm_storms'), 0);
});

test('escalation: an unacknowledged operations alarm goes to the next roster entry each period; acknowledging stops it', async () => {
  await importAlarms(db.pool, {
    recipients: [
      { id: 'r-first', OrganizationID: 'north', channel: 'email', address: 'first@north.example' },
      { id: 'r-second', OrganizationID: 'north', channel: 'sms', address: '+15550122' },
      { id: 'r-third', OrganizationID: 'north', channel: 'sms', address: '+15550133' },
    ],
    rules: [{ id: 'r-esc', OrganizationID: 'north', class: 'operations', what: ['permanent'], who: ['r-first'], escalation: { afterMinutes: 15, roster: ['r-second', 'r-third'] } }],
  });
  const s = settings({ ALARM_RECIPIENT_CAP_PER_DAY: '1000' });
  const t = T0 + 300 * HOUR;
  await applyCheckInAlarms(db.pool, [checkIn(B, t, 4, 0)], t);
  await routeAlarms(db.pool, s, t);
  const to = async () => (await db.pool.query<{ recipient_id: string; kind: string }>(`select recipient_id, kind from alarm_outbox order by id`)).rows.map((x) => `${x.kind}:${x.recipient_id}`);
  assert.equal(await to(), ['raised:r-first']);
  await routeAlarms(db.pool, s, t + 14 * MIN);
  assert.equal(await to(), ['raised:r-first'], 'not before the period');
  await routeAlarms(db.pool, s, t + 16 * MIN);
  assert.equal(await to(), ['raised:r-first', 'escalated:r-second']);
  // Acknowledged (as the portal does): no third step.
  await db.pool.query(`update alarms set acknowledged_at = $1, acknowledged_by = 'admin@north.example' where "IMEINumber" = $2`, [new Date(t + 20 * MIN), B]);
  await routeAlarms(db.pool, s, t + 40 * MIN);
  assert.equal(await to(), ['raised:r-first', 'escalated:r-second']);
  // The clear goes to everyone who heard of it.
  await applyCheckInAlarms(db.pool, [checkIn(B, t + 41 * MIN, 0, 4)], t + 41 * MIN);
  await routeAlarms(db.pool, s, t + 42 * MIN);
  assert.equal((await to()).slice(2).sort(), ['cleared:r-first', 'cleared:r-second']);
});

test.run();
