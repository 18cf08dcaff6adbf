// Fault injection (issue 8, delivery): the OMS answers 500, times out, resets the connection, presents an
// untrusted certificate; every notification is retried with back-off and delivered once the OMS recovers,
// in order per device, each exactly once here (at least once in general: a retry keeps its MessageID).
// Also: one in flight per device, the maximum age dead-letters, `outbox retry` brings a row back, and the
// integrations table holds no plaintext password.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { rmSync } from 'node:fs';
import { registry } from '../../../config/metrics.js';
import { listOutbox } from '../../../multispeak/delivery/admin.js';
import { startDeliveryWorker, type DeliveryWorker } from '../../../multispeak/delivery/index.js';
import { createTestDatabase, type TestDatabase } from '../../../support/database.js';
import { importDemoData, testKeyring } from '../../../support/reference-data.js';
import { fixtureNames, fixtureText, importFixture } from '../../../support/checkins.js';
import { startTestPipeline } from '../../../support/pipeline.js';
import { localAvroCodec } from '../../../stages/runtime/codec.js';
import { memoryTransport } from '../../../stages/runtime/transport/memory.js';
import { startFaultline } from '../../../support/process.js';
import { waitFor } from '../../../support/wait-for.js';
import { faultPayload } from '../../multispeak/notifications.js';
import { ensurePython } from '../../multispeak/python.js';
import { addIntegration, passwordOf } from './integrations.js';
import { startOms, type Oms } from './oms.js';
import { makeCerts, type TestCerts } from './tls.js';

const test = suite('multispeak delivery faults');
let db: TestDatabase;
let oms: Oms;
let worker: DeliveryWorker;
let dedup = 0;

const A = '861000000000100';
const B = '861000000000200';

async function enqueue(integration: string, imei: string, over: { createdHoursAgo?: number } = {}): Promise<number> {
  const payload = { ...faultPayload, IMEINumber: imei, date: new Date(Date.UTC(2026, 10, 20, 8, 0, dedup++)).toISOString() };
  const { rows } = await db.pool.query<{ id: number }>(
    `insert into outbox (integration_id, "IMEINumber", kind, dedup_key, payload, created_at)
     values ($1, $2, 'status', $3, $4, now() - $5 * interval '1 hour') returning id`,
    [integration, imei, `status:${imei}:${dedup}`, JSON.stringify(payload), over.createdHoursAgo ?? 0],
  );
  return rows[0]!.id;
}

const rowsOf = async (ids: number[]) => (await db.pool.query<{ id: number; attempts: number; last_error: string | null; delivered_at: Date | null; dead_at: Date | null }>(
  'select id, attempts, last_error, delivered_at, dead_at from outbox where id = any($1) order by id', [ids])).rows;

/** Makes every waiting row due now, so a test does not sleep through back-off delays. */
/** `faultline outbox ...` as an operator runs it, on this suite's database. */
async function runCli(args: string[]): Promise<string> {
  const proc = startFaultline(args, { DATABASE_URL: db.url });
  const code = await proc.exited;
  assert.is(code, 0, proc.output());
  return proc.output();
}

const dueNow = () => db.pool.query('update outbox set next_attempt_at = now() where delivered_at is null and dead_at is null');

test.before(async () => {
  await ensurePython();
  db = await createTestDatabase('msfaults');
  await importDemoData(db.pool);
  await db.pool.query(`update integrations set enabled = false where kind = 'multispeak'`);
  oms = await startOms();
  await addIntegration(db.pool, { id: 'flaky', operation: 'ODEventNotification', version: '4.1', endpoint: oms.url, settings: { timeoutMs: 400 } });
  worker = startDeliveryWorker({ pool: db.pool, keyring: testKeyring(), backoff: { initialMs: 5, maxMs: 20 }, integrationsTtlMs: 0 }, { loop: false });
});
test.after(async () => {
  await oms?.stop();
  await db?.drop();
});

test('500, timeout, reset: retried with one row in flight per device, then delivered in order once the OMS recovers', async () => {
  const ids = [await enqueue('flaky', A), await enqueue('flaky', B), await enqueue('flaky', A), await enqueue('flaky', A), await enqueue('flaky', B)];
  for (const [mode, code] of [['500', 'SOAP_FAULT'], ['timeout', 'TIMEOUT'], ['reset', 'CONNECT_FAILED']] as const) {
    await oms.mode(mode);
    await dueNow();
    assert.is(await worker.runOnce(), 2, `${mode}: one row per device`);
    const rows = await rowsOf(ids);
    for (const r of rows.filter((x) => x.id === ids[0] || x.id === ids[1])) assert.match(r.last_error ?? '', code, `${mode}: ${r.last_error}`);
    // The later rows of each device were never tried: order is kept by waiting behind the head.
    assert.equal(rows.filter((x) => x.attempts > 0).map((x) => x.id), [ids[0], ids[1]]);
    assert.ok(rows.every((x) => x.delivered_at === null && x.dead_at === null));
  }
  await oms.mode('ok');
  await waitFor('all delivered', async () => {
    await dueNow();
    await worker.runOnce();
    return (await rowsOf(ids)).every((r) => r.delivered_at !== null);
  }, { timeoutMs: 20_000 });
  const received = (await oms.received()).map((r) => r.header.MessageID);
  assert.is(new Set(received).size, received.length, 'no duplicates');
  // Every attempt of a row, failed or not, carried that row's one MessageID (the OMS can deduplicate).
  const attempts = await oms.attempts();
  assert.is(attempts.filter((m) => m === `faultline-flaky-${ids[0]}`).length, 4, 'three failed attempts and the delivery');
  assert.ok(attempts.every((m) => m !== null && /^faultline-flaky-\d+$/.test(m)));
  for (const id of ids) assert.ok(received.includes(`faultline-flaky-${id}`), `row ${id} received`);
  const perDevice = (imei: string) => received.filter((m) => ids.filter((_, i) => [A, B, A, A, B][i] === imei).map((id) => `faultline-flaky-${id}`).includes(m!));
  assert.equal(perDevice(A), [ids[0], ids[2], ids[3]].map((id) => `faultline-flaky-${id}`));
  assert.equal(perDevice(B), [ids[1], ids[4]].map((id) => `faultline-flaky-${id}`));
  const metrics = await registry.metrics();
  assert.match(metrics, /faultline_outbox_sent_total\{integration="flaky",operation="ODEventNotification"\} 5/);
  assert.match(metrics, /faultline_outbox_failed_total\{integration="flaky",code="TIMEOUT"\} 2/);
});

test('past the maximum age a failing row is dead, the device moves on, and `outbox retry` brings it back', async () => {
  const old = await enqueue('flaky', A, { createdHoursAgo: 25 });
  const next = await enqueue('flaky', A);
  await oms.mode('500');
  await dueNow();
  await worker.runOnce();
  const [dead] = await rowsOf([old]);
  assert.ok(dead!.dead_at, 'dead after 24 h');
  assert.equal((await listOutbox(db.pool, { state: 'dead' })).map((r) => r.id), [old]);
  await oms.mode('ok');
  await dueNow();
  await worker.runOnce();
  assert.ok((await rowsOf([next]))[0]!.delivered_at, 'the next row of the device is not blocked by a dead one');
  const cli = await runCli(['outbox', 'list', '--state', 'dead']);
  assert.match(cli, new RegExp(`#${old} flaky status imei=${A} .* DEAD `));
  assert.match(cli, /SOAP_FAULT: HTTP 500, SOAP Fault: OMS database unavailable/);
  assert.match(await runCli(['outbox', 'retry', String(old)]), new RegExp(`outbox row #${old} is due now`));
  assert.is((await rowsOf([old]))[0]!.dead_at, null);
  await dueNow();
  await worker.runOnce();
  assert.ok((await rowsOf([old]))[0]!.delivered_at, 'retried and delivered');
  assert.is((await listOutbox(db.pool, { state: 'dead' })).length, 0);
});

test('an untrusted certificate fails the send; with the CA bundle configured (channel D) it is delivered', async () => {
  let certs: TestCerts | undefined;
  let tlsOms: Oms | undefined;
  try {
    certs = makeCerts();
    tlsOms = await startOms({ tls: { cert: certs.cert, key: certs.key } });
    await addIntegration(db.pool, { id: 'dmz', channel: 'D', operation: 'SCADAStatusChangedNotification', version: '3.0', endpoint: tlsOms.url });
    const id = await enqueue('dmz', B);
    await worker.runOnce();
    const [failed] = await rowsOf([id]);
    assert.match(failed!.last_error ?? '', /TLS_FAILED/);
    assert.is(failed!.delivered_at, null);
    await db.pool.query(`update integrations set settings = settings || jsonb_build_object('caFile', $2::text) where id = $1`, ['dmz', certs.ca]);
    await dueNow();
    await worker.runOnce();
    assert.ok((await rowsOf([id]))[0]!.delivered_at, 'delivered over TLS with the CA bundle');
  } finally {
    await tlsOms?.stop();
    if (certs) rmSync(certs.dir, { recursive: true, force: true });
  }
});

test('a hung OMS does not slow ingestion: the pipeline drains while the worker waits on it', async () => {
  await oms.mode('timeout');
  const looping = startDeliveryWorker({ pool: db.pool, keyring: testKeyring(), pollMs: 10, backoff: { initialMs: 5, maxMs: 20 }, integrationsTtlMs: 0 });
  const transport = memoryTransport({ codec: localAvroCodec(), partitions: 4 });
  const pipe = await startTestPipeline(transport, db.pool);
  try {
    const before = (await db.pool.query<{ n: number }>('select count(*)::int as n from outbox')).rows[0]!.n;
    const started = Date.now();
    for (const name of fixtureNames()) await pipe.feed([{ name, body: fixtureText(name) }]);
    await pipe.drain(15_000);
    const after = (await db.pool.query<{ n: number }>('select count(*)::int as n from outbox')).rows[0]!.n;
    assert.ok(after > before, 'the notify stage kept writing the outbox');
    assert.ok(Date.now() - started < 15_000, `drained in ${Date.now() - started} ms`);
    assert.ok((await oms.attempts()).length > 0);
  } finally {
    await pipe.stop();
    await transport.close();
    await looping.stop();
    await oms.mode('ok');
  }
});

test('the integrations table holds no plaintext password (fixture import and these suites)', async () => {
  const secrets = [
    ...((importFixture() as { integrations: { password?: string }[] }).integrations.flatMap((i) => (i.password ? [i.password] : []))),
    passwordOf('flaky'), passwordOf('dmz'),
  ];
  assert.ok(secrets.length >= 4);
  const { rows } = await db.pool.query<{ id: string; whole: string; credentials: Buffer | null }>(
    'select id, i::text as whole, credentials from integrations i');
  assert.ok(rows.filter((r) => r.credentials !== null).length >= 4, 'credentials are stored (encrypted)');
  for (const r of rows) {
    for (const s of secrets) {
      assert.not.ok(r.whole.includes(s), `${r.id}: plaintext in the row`);
      assert.not.ok(r.credentials?.includes(Buffer.from(s, 'utf8')), `${r.id}: plaintext in credentials`);
    }
  }
  const outbox = (await db.pool.query<{ t: string }>('select string_agg(o::text, \'\') as t from outbox o')).rows[0]!.t;
  for (const s of secrets) assert.not.ok(outbox.includes(s), 'no password in the outbox');
});

test.run();
