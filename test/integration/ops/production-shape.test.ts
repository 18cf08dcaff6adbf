// The production shape started the way docs/operations.md tells a person to: from the example env files
// (docs/examples/deploy/) and nothing else. A three-broker Kafka cluster of its own (infra/kafka-cluster.sh at
// port offset PRODUCTION_SHAPE_PORT_OFFSET, default 300, with its own INFRA_STATE_DIR; stopped at the end), an
// empty database that `faultline migrate` prepares as one explicit step, `faultline import`, then one process of
// every kind in the page's process table, each `faultline start --only $FAULTLINE_ONLY` with common.env,
// secrets.env and its own file, exactly as the systemd unit runs it, serving HTTPS. The values the files leave to
// the site (example.internal hosts, CHANGE-ME secrets, /etc/faultline, /var/lib/faultline and /srv paths, and
// this one machine's ports) are filled in below; every other line is used as written.
// Shown: every process answers /readyz 200 over HTTPS and /metrics only on METRICS_PORT; a check-in sent to
// SQS is read back through the API process; the DNP3 outstation completes a mutual-TLS handshake.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { promisify } from 'node:util';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import pg from 'pg';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fixtureText } from '../../../support/checkins.js';
import { serverUrl } from '../../../support/database.js';
import { freePort } from '../../../support/process.js';
import { devCerts, type DevCerts } from '../../helpers/dev-certs.js';
import { processEnvironment, processTable, readEnvFile, envFiles, SHARED_FILES } from '../../helpers/deploy-files.js';
import { createQueue, dropQueue, env as infra, log, newSqsClient, randomName, waitFor } from '../../resilience/rig.js';

const root = new URL('../../../', import.meta.url).pathname;
const run = promisify(execFile);
const OFFSET = process.env.PRODUCTION_SHAPE_PORT_OFFSET ?? '300';
const clusterEnv = { ...process.env, INFRA_PORT_OFFSET: OFFSET, INFRA_STATE_DIR: join(root, '.infra', `production-shape-${OFFSET}`) };
const cluster = (action: string) => run('bash', ['infra/kafka-cluster.sh', action], { cwd: root, env: clusterEnv, timeout: 300_000 });
/** A value the person following the page must fill in: the files' placeholders. */
const PLACEHOLDER = /example\.internal|CHANGE-ME|^\/etc\/faultline|^\/var\/lib\/faultline|^\/srv\//;
const DEMO_ADMIN = { email: 'admin@north.example', password: 'north-Admin-Pass-1' }; // schemas/config/demo-data.json
const CHECK_IN = '001-plain-checkin.json'; // a device of the demo organisation north

const sqs = newSqsClient();
let queueUrl = '';
let databaseName = '';
let certs: DevCerts;
let work = '';
const namespace = randomName('shape');
const jwtSecret = randomBytes(48).toString('base64');
let keyFile = '';
const processes: { kind: string; child: ChildProcess; output: () => string; env: Record<string, string>; exited: Promise<number | null> }[] = [];

test.before(async () => {
  work = mkdtempSync(join(tmpdir(), 'faultline-shape-'));
  certs = devCerts('faultline-shape-certs-');
  await cluster('up');
  queueUrl = await createQueue(sqs, randomName('shape'));
  databaseName = randomName('fl_shape').replace(/[^a-z0-9_]/g, '_');
  const admin = new pg.Client({ connectionString: serverUrl() });
  await admin.connect();
  await admin.query(`create database ${databaseName}`);
  await admin.end();
});

test.after(async () => {
  await Promise.all(processes.map(async (p) => {
    if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGTERM');
    const killer = setTimeout(() => p.child.kill('SIGKILL'), 40_000);
    await p.exited;
    clearTimeout(killer);
  }));
  await dropQueue(sqs, queueUrl).catch(() => {});
  sqs.destroy();
  const admin = new pg.Client({ connectionString: serverUrl() });
  await admin.connect().then(() => admin.query(`drop database if exists ${databaseName} with (force)`)).catch(() => {}).finally(() => admin.end());
  certs?.remove();
  rmSync(work, { recursive: true, force: true });
  await cluster('down').catch((err: Error) => console.error(`kafka-cluster down failed: ${err.message}`));
});

/** This machine's values for what the files leave to the site; ports per process. */
async function siteValues(kind: string, brokers: string): Promise<Record<string, string>> {
  const url = new URL(serverUrl());
  url.pathname = `/${databaseName}`;
  const dataDir = join(work, 'data', kind);
  mkdirSync(dataDir, { recursive: true });
  return {
    KAFKA_BROKERS: brokers, SCHEMA_REGISTRY_URL: infra.SCHEMA_REGISTRY_URL!, KAFKA_NAMESPACE: namespace,
    SQS_QUEUE_URL: queueUrl, SQS_ENDPOINT: infra.SQS_ENDPOINT!,
    HOST: '127.0.0.1', PORT: String(await freePort()), METRICS_PORT: String(await freePort()), DNP3_PORT: String(await freePort()), IEC104_PORT: String(await freePort()),
    HTTP_TLS_CERT: certs.outstation.cert, HTTP_TLS_KEY: certs.outstation.key,
    DNP3_TLS_KEY: certs.outstation.key, DNP3_TLS_CERT: certs.outstation.cert, DNP3_TLS_CA: certs.outstation.ca,
    DATA_DIR: dataDir, ARCHIVE_DIR: join(work, 'archive'), FAULTLINE_SECRET_KEY_FILE: keyFile,
    DATABASE_URL: url.toString(), JWT_SECRET: jwtSecret,
    ALARM_SMTP_URL: `smtp://alarms:${randomBytes(8).toString('hex')}@127.0.0.1:${await freePort()}`, ALARM_SMTP_FROM: 'faultline <alarms@localhost>',
    ALARM_SMS_URL: `http://127.0.0.1:${await freePort()}/send`, ALARM_SMS_TOKEN: randomBytes(8).toString('hex'),
    PORTAL_URL: 'https://localhost',
  };
}
/** Values the test sets that the files do not hold: the SQS endpoint, which only an SQS off AWS needs. */
const SITE_ADDITIONS = new Set(['SQS_ENDPOINT']);

/** The environment a unit gives a process: the files, with the site's values; nothing of this test's own. */
async function unitEnvironment(file: string, kind: string, brokers: string): Promise<Record<string, string>> {
  const fromFiles = processEnvironment(file);
  const site = await siteValues(kind, brokers);
  const unfilled = [...fromFiles].filter(([k, v]) => PLACEHOLDER.test(v) && !(k in site)).map(([k]) => k);
  assert.equal(unfilled, [], `${file}: a value to fill in that this suite does not know`);
  const env: Record<string, string> = { PATH: process.env.PATH!, HOME: process.env.HOME ?? '/root' };
  for (const [k, v] of fromFiles) env[k] = k in site ? site[k]! : v;
  for (const k of SITE_ADDITIONS) env[k] = site[k]!;
  return env;
}

function spawnFaultline(kind: string, args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, ['bin/faultline.js', ...args], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => { out += d.toString(); });
  child.stderr!.on('data', (d: Buffer) => { out += d.toString(); });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { kind, child, output: () => out, env, exited };
}

/** HTTPS to 127.0.0.1 with the development CA (the certificate names localhost and 127.0.0.1). */
function https(port: string, path: string, init: { method?: string; body?: string; token?: string } = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: Number(port), path, method: init.method ?? 'GET', ca: readFileSync(certs.pem('ca')), timeout: 30_000,
      headers: { ...(init.body ? { 'content-type': 'application/json' } : {}), ...(init.token ? { authorization: `Bearer ${init.token}` } : {}) } }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => { body += d.toString(); });
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', reject);
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.end(init.body);
  });
}

test('the example env files start every process kind on three brokers over HTTPS; a check-in travels SQS to the API', async () => {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', 'infra/endpoints.ts', '--shell'], { cwd: root, env: clusterEnv });
  const brokers = /^KAFKA_CLUSTER_BROKERS=(.*)$/m.exec(stdout)![1]!;
  keyFile = join(work, 'secret-keys');
  writeFileSync(keyFile, `k1:${randomBytes(32).toString('base64')}\n`, { mode: 0o600 });
  const rows = processTable();
  // Every file a person would fill in is one a process reads.
  assert.equal(envFiles().filter((f) => !rows.some((r) => r.file === f) && !(SHARED_FILES as readonly string[]).includes(f)), []);

  // The first start: migrate (one explicit step) and import, with the shared files only.
  const cliEnv = await unitEnvironment(SHARED_FILES[0], 'cli', brokers);
  for (const args of [['migrate'], ['import', 'schemas/config/demo-data.json']]) {
    const cli = spawnFaultline('cli', args, cliEnv);
    assert.is(await cli.exited, 0, `faultline ${args.join(' ')}\n${cli.output()}`);
  }

  for (const row of rows) {
    const env = await unitEnvironment(row.file, row.kind, brokers);
    assert.is(env.FAULTLINE_ONLY, readEnvFile(row.file).get('FAULTLINE_ONLY'));
    processes.push(spawnFaultline(row.kind, ['start', '--only', env.FAULTLINE_ONLY!], env));
  }
  log(`started ${processes.map((p) => `${p.kind} (--only ${p.env.FAULTLINE_ONLY}, https://127.0.0.1:${p.env.PORT})`).join(', ')}`);

  const alive = (p: (typeof processes)[number]) => {
    if (p.child.exitCode !== null) throw new Error(`${p.kind} exited ${p.child.exitCode}\n${p.output().slice(-3000)}`);
  };
  for (const p of processes) {
    // A process that exits fails the suite at once, with what it said (not after the whole wait).
    const exitedEarly = p.exited.then((code) => { throw new Error(`${p.kind} exited ${code} before answering /readyz\n${p.output().slice(-3000)}`); });
    await Promise.race([exitedEarly, waitFor(`${p.kind} ready over HTTPS`, async () => (await https(p.env.PORT!, '/readyz').catch(() => ({ status: 0 }))).status === 200,
      { timeoutMs: 300_000, intervalMs: 1000 }).catch((err: Error) => { throw new Error(`${err.message}\n${p.output().slice(-3000)}`); })]);
    // /metrics is on METRICS_PORT (plain HTTP, firewalled), not on the public port.
    const metrics = await fetch(`http://127.0.0.1:${p.env.METRICS_PORT}/metrics`);
    assert.is(metrics.status, 200, `${p.kind}: /metrics on METRICS_PORT`);
    assert.match(await metrics.text(), 'faultline_');
    assert.is((await https(p.env.PORT!, '/metrics')).status, 404, `${p.kind}: no /metrics on the public port`);
  }
  log('every process answers /readyz 200 over HTTPS');

  // A check-in from SQS through the bridge, the pipeline and Postgres to the API process: the device has no
  // record before it (a fresh database), one after.
  const body = fixtureText(CHECK_IN);
  const imei = (JSON.parse(body) as { device_data: { IMEINumber: string } }).device_data.IMEINumber;
  const api = processes.find((p) => p.kind === 'api')!;
  const login = await https(api.env.PORT!, '/api/auth/login', { method: 'POST', body: JSON.stringify(DEMO_ADMIN) });
  assert.is(login.status, 200, login.body);
  const token = (JSON.parse(login.body) as { accessToken: string }).accessToken;
  const dataLog = async () => {
    const res = await https(api.env.PORT!, `/api/device-records/device-information/data-log/${imei}`, { token });
    assert.is(res.status, 200, res.body);
    return (JSON.parse(res.body) as { data: unknown[] }).data;
  };
  assert.equal(await dataLog(), [], 'no record of the device before the check-in');
  await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body }));
  await waitFor('the check-in read back through the API', async () => (await dataLog()).length === 1, { timeoutMs: 300_000, intervalMs: 1000 }).catch(async (err: Error) => {
    // What the database holds and what each process said, before the fleet is stopped.
    const db = new pg.Client({ connectionString: api.env.DATABASE_URL });
    await db.connect();
    const stored = (await db.query('select count(*) from device_records')).rows[0].count as string;
    const rejected = (await db.query('select code, reason from rejected_messages limit 5')).rows;
    await db.end();
    log(`device_records ${stored}; rejected ${JSON.stringify(rejected)}`);
    for (const p of processes) log(`${p.kind}:\n${p.output().split('\n').filter((l) => /"level":(40|50|60)/.test(l) || !l.startsWith('{')).slice(-15).join('\n')}`);
    throw err;
  });
  log(`check-in of ${imei}: SQS -> bridge -> pipeline -> Postgres -> API`);

  // The outstation listens with mutual TLS: a SCADA master's certificate completes the handshake.
  const dnp3 = processes.find((p) => p.kind === 'dnp3')!;
  const master = certs.master('north');
  const authorized = await new Promise<boolean>((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port: Number(dnp3.env.DNP3_PORT), ca: readFileSync(master.ca), cert: readFileSync(master.cert), key: readFileSync(master.key), servername: 'localhost' }, () => {
      resolve(socket.authorized);
      socket.end();
    });
    socket.on('error', reject);
  });
  assert.ok(authorized, 'the outstation\'s certificate verified and ours accepted');

  for (const p of processes) alive(p);
});

test.run();
