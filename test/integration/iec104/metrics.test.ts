// IEC 104's metrics move on the running service as DNP3's do (issue 42 point 4; docs/monitoring.md): `faultline
// start --only iec104,api` on Postgres with north's integration, and a controlling station written by the test
// (raw frames over mutual TLS, north's certificate). faultline_iec104_sessions goes 0 -> 1 when the master starts
// data transfer and back to 0 when it goes; a command to an output the station does not have counts in
// faultline_iec104_refused_total by reason; a check-in stored while the master is started reaches it as a
// spontaneous event, and its acknowledgement counts in faultline_iec104_confirmed_seconds for north. The alert
// rules read these three (ops/prometheus/faultline-rules.yml, test/ops/alert-rules.test.ts).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { infraEnv } from '../../../infra/endpoints.js';
import { encodeApdu } from '../../../iec104/apci/apci.js';
import { createTestDatabase, type TestDatabase } from '../../../support/database.js';
import { registerDevices, seedOrganization } from '../../../support/device-data.js';
import { freePort, startFaultline, type FaultlineProcess } from '../../../support/process.js';
import { importDemoData } from '../../../support/reference-data.js';
import { waitFor } from '../../../support/wait-for.js';
import { devCerts, type DevCerts } from '../../helpers/dev-certs.js';
import { iFrames, openRawMaster, startDataTransfer, until, type RawMaster } from '../../helpers/iec104-raw-master.js';

const PREFIX = '8610410';
const env = { ...infraEnv(), ...process.env } as Record<string, string>;
const dataDir = mkdtempSync(join(tmpdir(), 'iec104-metrics-data-'));
let certs: DevCerts;
let db: TestDatabase;
let proc: FaultlineProcess;
let base = '';
let iec104Port = 0;
const open: RawMaster[] = [];

const withOutput = (err: Error): never => { throw new Error(`${err.message}\n${proc.output().slice(-4000)}`); };
const master = async (): Promise<RawMaster> => { const c = await openRawMaster(iec104Port, certs.master('north'), true); open.push(c); return c; };

/** One series' value from the service's /metrics, NaN when it is not served. */
async function metric(series: string): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? Number.NaN : Number(line.slice(series.length + 1));
}
const settles = (series: string, want: (v: number) => boolean, what: string) =>
  waitFor(`${series} ${what}`, async () => want(await metric(series)), { timeoutMs: 60_000, intervalMs: 200 });

const SESSIONS = 'faultline_iec104_sessions{integration="north-104"}';
const UNKNOWN_TYPE = 'faultline_iec104_refused_total{integration="north-104",reason="unknownType"}';
const CONFIRMED = 'faultline_iec104_confirmed_seconds_count{organization="north"}';

test.before(async () => {
  certs = devCerts('iec104-metrics-certs-');
  db = await createTestDatabase('iec104metrics');
  await importDemoData(db.pool);
  await seedOrganization(db.pool, 'north');
  await registerDevices(db.pool, { prefix: PREFIX, devices: 2, org: 'north', powerLines: ['north-F12', 'north-F7'], groups: ['north-east', 'north-west'] });
  await db.pool.query(`insert into integrations (id, "OrganizationID", kind, channel, settings) values ('north-104', 'north', 'iec104', 'A', $1)`,
    [JSON.stringify({ masterIdentity: 'scada.north.example', commonAddress: 1 })]);
  const port = await freePort();
  iec104Port = await freePort();
  base = `http://127.0.0.1:${port}`;
  proc = startFaultline(['start', '--only', 'iec104,api'], {
    KAFKA_BROKERS: env.KAFKA_BROKERS!, SCHEMA_REGISTRY_URL: env.SCHEMA_REGISTRY_URL!, DATABASE_URL: db.url, DATA_DIR: dataDir,
    PORT: String(port), HOST: '127.0.0.1', DNP3_PORT: String(await freePort()), IEC104_PORT: String(iec104Port),
    DNP3_TLS_KEY: certs.outstation.key, DNP3_TLS_CERT: certs.outstation.cert, DNP3_TLS_CA: certs.outstation.ca,
    FAULTLINE_SECRET_KEYS: `test:${Buffer.alloc(32, 7).toString('base64')}`, LOG_LEVEL: 'warn',
  });
  await waitFor('the IEC 104 station listed', () => /IEC 104 station on TCP 127\.0\.0\.1:\d+.*\(mutual TLS/.test(proc.output()), { timeoutMs: 180_000, intervalMs: 250 })
    .catch(withOutput);
});

test.after(async () => {
  for (const c of open) c.end();
  await proc?.stop('SIGTERM');
  await db?.drop();
  certs?.remove();
  rmSync(dataDir, { recursive: true, force: true });
});

test('master connected: 0 until the master starts data transfer, 1 while it is started, 0 when it goes', async () => {
  assert.is(await metric(SESSIONS), 0, 'a configured integration is a series before any connection');
  const c = await master();
  // Connected over TLS but standing by (no STARTDT): it receives no events, so it is not the master the alert asks for.
  await new Promise((r) => setTimeout(r, 500));
  assert.is(await metric(SESSIONS), 0);
  await startDataTransfer(c);
  await settles(SESSIONS, (v) => v === 1, 'is 1 after STARTDT');
  c.end();
  await settles(SESSIONS, (v) => v === 0, 'is 0 after the master went');
});

test('discards: a command to an output the station does not have is counted by integration and reason', async () => {
  const before = await metric(UNKNOWN_TYPE);
  const c = await master();
  await startDataTransfer(c);
  // C_SC_NA_1 (type 45) activation to CA 1, IOA 1: refused with cause 44, negative.
  c.send(encodeApdu({ format: 'I', ns: 0, nr: 0, asdu: Uint8Array.from([45, 0x01, 6, 0, 1, 0, 1, 0, 0, 0x01]) }));
  await until(() => iFrames(c).some((f) => f.asdu[0] === 45 && (f.asdu[2]! & 0x3f) === 44 && (f.asdu[2]! & 0x40) !== 0), 'the negative confirmation (cause 44)');
  await settles(UNKNOWN_TYPE, (v) => v === (Number.isNaN(before) ? 0 : before) + 1, 'counted once');
  c.end();
});

test('confirm time: a stored check-in\'s event acknowledged by the master is observed for its organisation', async () => {
  const before = await metric(CONFIRMED);
  assert.ok(Number.isNaN(before) || before === 0, `nothing acknowledged yet: ${before}`);
  const c = await master();
  await startDataTransfer(c);
  const seen = iFrames(c).length;
  // A permanent fault stored now on the first device: the point feed wakes (NOTIFY dnp3_change) and the station
  // sends it spontaneously (COT 3); the raw master acknowledges every I frame it receives.
  await db.pool.query(`insert into device_records ("IMEINumber", model, version, "date", rssi, "State", "FaultType", "BatteryOrLine", "BatteryMCU",
      "AverageCurrent1m", "PrefaultCurrent", "Ongoing_fault", "ActualOngoingFault", "ReportedOngoingFault", "CurrentName", "CurrentLat", "CurrentLong",
      "Temperature", source_message_id)
    values ($1, 'FCI-3000', '4.2.1', now(), -70, 0, 0, 0, 3.6, 100, 90, 4, 4, 4, 'Generated pole 1', 41, -87.6, 20, 'iec104-metrics-1')`, [`${PREFIX}00000001`]);
  await until(() => iFrames(c).slice(seen).some((f) => (f.asdu[2]! & 0x3f) === 3), 'a spontaneous event', 60_000);
  await settles(CONFIRMED, (v) => v >= 1, 'counts the acknowledged check-in');
  const sum = await metric('faultline_iec104_confirmed_seconds_sum{organization="north"}');
  assert.ok(sum >= 0 && sum < 600, `stored to acknowledged: ${sum} s`);
  c.end();
});

test.run();
