// A raise is routed and sent as it arrives (#34 point 4, docs/decisions.md#workers-wake-on-notify): the alarm
// worker runs with a router tick and an outbox poll of an hour, so only the NOTIFY on alarm_changes (migration
// 0017) and the router's wake-up of the outbox can bring the SMS to the gateway within the wait.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadAlarmSettings } from '../../../config/settings.js';
import { applyCheckInAlarms } from '../../../alarms/raise.js';
import { startAlarmWorker, type AlarmWorker } from '../../../alarms/start.js';
import { createTestDatabase, type TestDatabase } from '../../../support/database.js';
import { importDemoData } from '../../../support/reference-data.js';
import { importAlarms } from '../../../support/alarm-setup.js';
import { waitFor } from '../../../support/wait-for.js';
import { startHttpPeer, type HttpPeer } from './peers.js';

const A = '861000000000000';
const HOUR = 3_600_000;
let db: TestDatabase;
let gateway: HttpPeer;
let worker: AlarmWorker | undefined;

test.before(async () => {
  db = await createTestDatabase('alarmwakeups');
  await importDemoData(db.pool);
  gateway = await startHttpPeer();
  await importAlarms(db.pool, {
    recipients: [{ id: 'w-sms', OrganizationID: 'north', channel: 'sms', address: '+15550133' }],
    rules: [{ id: 'w-all', OrganizationID: 'north', class: 'operations', what: ['permanent'], who: ['w-sms'] }],
  });
});
test.after(async () => {
  await worker?.stop();
  await gateway?.stop();
  await db?.drop();
});

test('a permanent fault raised while the router and the outbox are idle for an hour reaches the SMS gateway', async () => {
  const settings = loadAlarmSettings({ ALARM_SMS_URL: `${gateway.url}/sms`, ALARM_SMS_TOKEN: 'sms-Token-5678' });
  worker = startAlarmWorker({ pool: db.pool, settings, offlineAfterHours: 26, keyring: null, tickMs: HOUR, pollMs: HOUR });
  // The raise must come after the worker listens (a NOTIFY before LISTEN is nobody's): its connection's last
  // statement is the LISTEN, and its first round (at start) has run once the routing queue was read.
  await waitFor('the router listening on alarm_changes', async () => (await db.pool.query(
    `select 1 from pg_stat_activity where datname = current_database() and query = 'listen alarm_changes'`)).rowCount === 1, { timeoutMs: 60_000, intervalMs: 100 });
  const now = Date.now();
  await applyCheckInAlarms(db.pool, [{
    IMEINumber: A, OrganizationID: 'north', PowerLineID: 'north-F12', deviceName: null, date: new Date(now).toISOString(), code: 4,
    transition: { raise: 'permanent', end: ['temporary'] }, modelChange: null,
  }], now);
  await waitFor('the SMS at the gateway', () => gateway.requests.length >= 1, { timeoutMs: 60_000, intervalMs: 100 });
  const sms = new URLSearchParams(gateway.requests[0]!.body);
  assert.is(sms.get('to'), '+15550133');
  assert.match(sms.get('text') ?? '', /^ALARM Permanent fault: .*\(861000000000000\)/);
  const { rows } = await db.pool.query<{ n: number }>(`select count(*)::int as n from alarm_changes where routed_at is null`);
  assert.is(rows[0]!.n, 0, 'the raise is marked routed');
});

test.run();
