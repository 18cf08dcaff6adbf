// The embedded default as a newcomer runs it: `faultline start` with no infrastructure variables starts
// embedded Postgres, loads the demo data, answers /healthz, and turns fixture messages dropped into the
// inbox into device records (and the bad ones into rejected_messages), and delivers the faults to the demo
// OMS. Ctrl-C stops it cleanly. It is safe on a network: every listener on loopback, the Postgres superuser's
// password random in a 0600 file, and a warning while a demo password still logs in.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { appendFileSync, copyFileSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { embeddedDatabaseUrl, embeddedPasswordFile } from '../../db/embedded.js';
import { FIXTURES_DIR, fixtureNames } from '../../support/checkins.js';
import { listenersOf } from '../helpers/listening.js';
import { freePort, startFaultline, type FaultlineProcess } from '../../support/process.js';
import { waitFor } from '../../support/wait-for.js';

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
  // No HOST: the default a fresh clone gets.
  proc = startFaultline(['start'], { DATA_DIR: dataDir, PORT: String(port), HOST: '', EMBEDDED_PG_PORT: String(pgPort), DNP3_PORT: String(dnp3Port), SIMULATE: '0', DATABASE_URL: '', KAFKA_BROKERS: '', SQS_QUEUE_URL: '', LOG_LEVEL: 'info' });
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
  assert.match(proc.output(), `DNP3 outstation on TCP 127.0.0.1:${dnp3Port}, loopback only (HOST=0.0.0.0 opens it to the network) (mutual TLS`);
  assert.match(proc.output(), 'demo OMS for north-oms (http://127.0.0.1:18080/soap/OA_Server)');
});

test('npm start listens on loopback only, and says so', async () => {
  const listeners = listenersOf(proc.child.pid!);
  const open = listeners.filter((l) => !l.loopback);
  assert.equal(open, [], `listening beyond loopback: ${JSON.stringify(open)}`);
  // What the start-up list names is what listens (the demo OMS only when its port was free).
  const ports = new Set(listeners.filter((l) => l.protocol === 'tcp').map((l) => l.port));
  for (const p of [port, pgPort, dnp3Port]) assert.ok(ports.has(p), `port ${p} listens: ${JSON.stringify(listeners)}`);
  assert.match(proc.output(), `API on http://127.0.0.1:${port}, loopback only`);
  assert.match(proc.output(), `embedded PostgreSQL (${dataDir}/postgres on 127.0.0.1:${pgPort}, loopback only`);
  assert.not.match(proc.output(), 'localhost:');
  // And from outside: the machine's own network address is refused on every port the list names.
  const outside = Object.values(networkInterfaces()).flat().find((a) => a && a.family === 'IPv4' && !a.internal)?.address;
  if (outside) {
    for (const p of [port, pgPort, dnp3Port]) {
      const refused = await new Promise<boolean>((resolve) => {
        const socket = connect({ host: outside, port: p }, () => { socket.destroy(); resolve(false); });
        socket.on('error', () => resolve(true));
      });
      assert.ok(refused, `${outside}:${p} accepted a connection`);
    }
  }
});

test('the embedded Postgres superuser: a random password in a 0600 file; the old fixed one is refused', async () => {
  const file = embeddedPasswordFile(dataDir);
  assert.is(statSync(file).mode & 0o777, 0o600);
  assert.match(proc.output(), `superuser password in ${file}, mode 0600`);
  const fixed = new pg.Client({ connectionString: `postgres://postgres:faultline-embedded@127.0.0.1:${pgPort}/faultline` });
  const refused = await fixed.connect().then(() => null, (err: { code?: string }) => err.code);
  await fixed.end().catch(() => {});
  assert.is(refused, '28P01', 'password authentication failed');
});

test('the start-up list warns while a demo password still logs in; on loopback not of its generated secrets', () => {
  assert.not.match(proc.output(), /opens this embedded default to the network/);
  assert.match(proc.output(), /WARNING: the published demo password still logs in as admin@north\.example, admin@south\.example, east@north\.example, east@south\.example/);
});

test('fixture messages dropped into the inbox become device records; malformed ones are rejected with reasons', async () => {
  const inbox = join(dataDir, 'inbox');
  for (const name of fixtureNames()) {
    copyFileSync(new URL(`messages/${name}`, FIXTURES_DIR), join(inbox, `${name}.tmp`));
    renameSync(join(inbox, `${name}.tmp`), join(inbox, name));
  }
  const client = new pg.Client({ connectionString: embeddedDatabaseUrl(dataDir, pgPort) });
  await client.connect();
  try {
    await waitFor('records and rejections', async () => {
      const r = await client.query(`select (select count(*) from device_records)::int as records, (select count(*) from rejected_messages)::int as rejected`);
      return r.rows[0].records >= 11 && r.rows[0].rejected >= 2;
    }, { timeoutMs: 30_000, intervalMs: 200 });
    // A file is removed once the pipeline committed its record and effects, a moment after the record is stored
    // (docs/pipeline.md#the-in-process-transport).
    await waitFor('the inbox emptied', () => readdirSync(inbox).length === 0, { timeoutMs: 30_000, intervalMs: 100 });
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

/** Spool files the inbox left for later because they did not parse yet and were still changing. */
async function spoolHeld(): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  return Number(/faultline_source_messages\{source="spool",outcome="held"\} (\d+)/.exec(text)?.[1] ?? 0);
}

test('a spool file written slowly in two parts, in place, is stored once, complete', async () => {
  const message = JSON.parse(readFileSync(new URL('messages/001-plain-checkin.json', FIXTURES_DIR), 'utf8')) as { device_data: Record<string, unknown> };
  // A day of its own and a marker value, so this one record can be told from the fixtures' records.
  message.device_data.date = '2026-11-21T09:30:00Z';
  message.device_data.rssi = -42;
  const text = JSON.stringify(message, null, 2);
  const file = join(dataDir, 'inbox', 'slow-writer.json');
  const held = await spoolHeld();
  writeFileSync(file, text.slice(0, Math.floor(text.length / 2)));
  await waitFor('the spool saw the half-written file and left it', async () => (await spoolHeld()) > held, { timeoutMs: 30_000, intervalMs: 50 });
  appendFileSync(file, text.slice(Math.floor(text.length / 2)));
  const client = new pg.Client({ connectionString: embeddedDatabaseUrl(dataDir, pgPort) });
  await client.connect();
  try {
    await waitFor('the record stored', async () => (await client.query(`select 1 from device_records where "IMEINumber" = $1 and rssi = -42`, [message.device_data.IMEINumber])).rowCount! > 0, { timeoutMs: 30_000, intervalMs: 200 });
    const stored = await client.query(`select "date", rssi from device_records where "IMEINumber" = $1 and "date" = $2`, [message.device_data.IMEINumber, message.device_data.date]);
    assert.is(stored.rowCount, 1, 'stored once');
    assert.is(stored.rows[0].rssi, -42);
    const rejected = await client.query(`select code from rejected_messages where message_id = 'slow-writer.json'`);
    assert.is(rejected.rowCount, 0, 'never dead-lettered');
  } finally {
    await client.end();
  }
  await waitFor('the file removed once its record and effects were committed', () => !readdirSync(join(dataDir, 'inbox')).includes('slow-writer.json'), { timeoutMs: 30_000, intervalMs: 100 });
});

const EDIT_FILE = () => {
  // What an operator does to a running demo: edit the demo DNP3 integration and add a device.
  const file = join(dataDir, 'edit.json');
  writeFileSync(file, JSON.stringify({
    integrations: [{ id: 'north-scada', OrganizationID: 'north', kind: 'dnp3', channel: 'A', masterIdentity: 'scada.north.example', outstationAddress: 10, masterAddress: 1, unsolicited: false }],
    devices: [{ IMEINumber: '861000000099999', OrganizationID: 'north', PowerLineID: 'north-F12', Real_Name: 'Added beside a running start', Lat: 41.9, Long: -87.6, serialNumber: 'SN-E2E-1', groups: [], deleted: false }],
    users: [{ email: 'admin@north.example', password: 'a-Changed-Pass-42', OrganizationID: 'north', role: 'admin', timezone: 'America/Chicago', groups: [] }],
  }));
  return file;
};

async function runCommand(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; output: string }> {
  const command = startFaultline(args, { DATA_DIR: dataDir, DATABASE_URL: '', KAFKA_BROKERS: '', SQS_QUEUE_URL: '', ...env });
  const code = await command.exited;
  return { code, output: command.output() };
}

const storedEdit = async () => {
  const client = new pg.Client({ connectionString: embeddedDatabaseUrl(dataDir, pgPort) });
  await client.connect();
  try {
    const r = await client.query(`select (select settings->>'unsolicited' from integrations where id = 'north-scada') as unsolicited,
      (select "Real_Name" from device_information where "IMEINumber" = '861000000099999') as added`);
    return r.rows[0] as { unsolicited: string | null; added: string | null };
  } finally {
    await client.end();
  }
};

test('faultline import beside a running start uses its database', async () => {
  const { code, output } = await runCommand(['import', EDIT_FILE()], { LOG_LEVEL: 'info' });
  assert.is(code, 0, output);
  assert.match(output, 'devices: 1 inserted');
  assert.match(output, 'using the embedded database already running');
  assert.equal(await storedEdit(), { unsolicited: 'false', added: 'Added beside a running start' });
  assert.ok(proc.child.exitCode === null, 'the running instance is still up');
});

test('a second start on the same data directory is refused in one sentence', async () => {
  const { code, output } = await runCommand(['start'], { PORT: String(await freePort()), SIMULATE: '0' });
  assert.is(code, 1, output);
  assert.match(output, `faultline: faultline is already running on ${dataDir} (pid ${proc.child.pid})`);
  assert.not.match(output, /at .*\.ts:\d+/, 'no stack trace');
});

test('Ctrl-C (SIGINT) stops every component and exits 0', async () => {
  const code = await proc.stop('SIGINT');
  assert.is(code, 0, proc.output());
});

test('a restart keeps what the user changed: demo data is seeded only into an empty database; on every interface it warns of its generated secrets', async () => {
  proc = startFaultline(['start'], { DATA_DIR: dataDir, PORT: String(port), HOST: '0.0.0.0', EMBEDDED_PG_PORT: String(pgPort), DNP3_PORT: String(dnp3Port), SIMULATE: '0', DATABASE_URL: '', KAFKA_BROKERS: '', SQS_QUEUE_URL: '', DEMO_OMS: '0' });
  await waitFor('the start summary', () => proc.output().includes('Ctrl-C stops it'), { timeoutMs: 60_000 }).catch((err: Error) => {
    throw new Error(`${err.message}\n--- output ---\n${proc.output()}`);
  });
  assert.match(proc.output(), 'demo data (kept: the database already has organisations)');
  assert.equal(await storedEdit(), { unsolicited: 'false', added: 'Added beside a running start' });
  // The changed demo password is no longer warned about; the others still are.
  assert.match(proc.output(), /WARNING: the published demo password still logs in as admin@south\.example, east@north\.example, east@south\.example \(/);
  // HOST=0.0.0.0 with the keys and certificates the embedded default generated (docs/decisions.md#secrets-left-at-their-example).
  const generated = proc.output().split('\n').find((l) => l.includes('WARNING: HOST=0.0.0.0 opens this embedded default to the network'));
  assert.ok(generated, proc.output());
  for (const part of [`${dataDir}/jwt-secret`, `${dataDir}/secrets/keys`, `${dataDir}/certs`]) assert.ok(generated.includes(part), `${part} in ${generated}`);
  assert.is(await proc.stop('SIGINT'), 0, proc.output());
});

test.run();
