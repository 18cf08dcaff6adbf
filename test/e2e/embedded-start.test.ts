// The embedded default as a newcomer runs it: `faultline start` with no infrastructure variables starts
// embedded Postgres, loads the demo data, answers /healthz, and turns fixture messages dropped into the
// inbox into device records (and the bad ones into rejected_messages), and delivers the faults to the demo
// OMS. Ctrl-C stops it cleanly.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { copyFileSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { FIXTURES_DIR, fixtureNames } from '../helpers/checkins.js';
import { freePort, startFaultline, type FaultlineProcess } from '../helpers/process.js';
import { waitFor } from '../helpers/wait-for.js';

const dataDir = mkdtempSync(join(tmpdir(), 'faultline-e2e-'));
let proc: FaultlineProcess;
let port: number;
let pgPort: number;
let dnp3Port: number;

test.after(async () => {
  await proc?.stop('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

test('npm start: /healthz answers within 60 s on a fresh data directory', async () => {
  port = await freePort();
  pgPort = await freePort();
  dnp3Port = await freePort();
  proc = startFaultline(['start'], { DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', EMBEDDED_PG_PORT: String(pgPort), DNP3_PORT: String(dnp3Port), SIMULATE: '0', DATABASE_URL: '', KAFKA_BROKERS: '', SQS_QUEUE_URL: '', LOG_LEVEL: 'info' });
  const started = Date.now();
  await waitFor('/healthz', async () => (await fetch(`http://127.0.0.1:${port}/healthz`)).ok, { timeoutMs: 60_000, intervalMs: 200 }).catch((err: Error) => {
    throw new Error(`${err.message}\n--- output ---\n${proc.output()}`);
  });
  assert.ok(Date.now() - started < 60_000);
  const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
  assert.is(ready.status, 200);
  assert.equal(((await ready.json()) as { checks: unknown }).checks, { database: 'up', transport: 'up' });
  const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  assert.match(metrics, 'faultline_stage_records_total');
  // Components after the API (the outstation, with its generated development certificates) follow shortly.
  await waitFor('the start summary', () => proc.output().includes('Ctrl-C stops it'), { timeoutMs: 30_000 });
  assert.match(proc.output(), `DNP3 outstation on TCP ${dnp3Port} (mutual TLS`);
  assert.match(proc.output(), 'demo OMS for north-oms (http://127.0.0.1:18080/soap/OA_Server)');
});

test('fixture messages dropped into the inbox become device records; malformed ones are rejected with reasons', async () => {
  const inbox = join(dataDir, 'inbox');
  for (const name of fixtureNames()) {
    copyFileSync(new URL(`messages/${name}`, FIXTURES_DIR), join(inbox, `${name}.tmp`));
    renameSync(join(inbox, `${name}.tmp`), join(inbox, name));
  }
  const client = new pg.Client({ connectionString: `postgres://postgres:faultline-embedded@127.0.0.1:${pgPort}/faultline` });
  await client.connect();
  try {
    await waitFor('records and rejections', async () => {
      const r = await client.query(`select (select count(*) from device_records)::int as records, (select count(*) from rejected_messages)::int as rejected`);
      return r.rows[0].records >= 10 && r.rows[0].rejected >= 2;
    }, { timeoutMs: 30_000, intervalMs: 200 });
    assert.equal(readdirSync(inbox), [], 'the inbox is emptied once accepted');
    const records = await client.query(`select "IMEINumber", count(*)::int as n from device_records group by 1 order by 1`);
    // 14 fixtures: 2 rejected, 1 resend of a stored check-in -> 11 records over 9 IMEIs (one unregistered).
    assert.is(records.rows.reduce((s, r) => s + r.n, 0), 11);
    const rejected = await client.query(`select message_id, code, reason from rejected_messages order by message_id`);
    assert.equal(rejected.rows.map((r) => [r.message_id, r.code]), [['013-malformed-json.json', 'MALFORMED'], ['014-missing-imei.json', 'INVALID']]);
    for (const r of rejected.rows) assert.ok(r.reason.length > 10, `reason for ${r.message_id}`);
    assert.match(rejected.rows[1].reason, 'IMEINumber');

    // The demo data's MultiSpeak integrations deliver to the demo OMS of `npm start`: the outbox empties.
    await waitFor('outbox delivered to the demo OMS', async () => {
      const r = await client.query(`select count(*) filter (where delivered_at is not null)::int as delivered, count(*) filter (where delivered_at is null)::int as pending from outbox`);
      return r.rows[0].delivered > 0 && r.rows[0].pending === 0;
    }, { timeoutMs: 30_000, intervalMs: 200 });
    const failed = await client.query(`select count(*)::int as n from outbox where last_error is not null or attempts > 1`);
    assert.is(failed.rows[0].n, 0, 'every item delivered on its first attempt');
    assert.match(proc.output(), 'demo OMS received a notification');
  } finally {
    await client.end();
  }
});

test('Ctrl-C (SIGINT) stops every component and exits 0', async () => {
  const code = await proc.stop('SIGINT');
  assert.is(code, 0, proc.output());
});

test.run();
