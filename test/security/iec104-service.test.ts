// IEC 104 memory exhaustion against the running service (issue 41 finding 4; docs/decisions.md#iec-104-bounded-sessions):
// `faultline start --only iec104,api` on Postgres, north's station at the bench's point count (10,000 devices
// registered with one check-in each), south's beside it. North's master (a trusted certificate, raw frames written by
// the test) sends 2,000 general interrogations in one write: the station closes that connection (replyQueueFull,
// counted in master_diagnostics), the service's heap and buffers, read from its own /metrics, stay bounded, and
// south's master is served during and after. Before: one such write needed gigabytes.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { infraEnv } from '../../infra/endpoints.js';
import { createTestDatabase, type TestDatabase } from '../../support/database.js';
import { generateDeviceData, registerDevices, seedOrganization } from '../../support/device-data.js';
import { freePort, startFaultline, type FaultlineProcess } from '../../support/process.js';
import { importDemoData } from '../../support/reference-data.js';
import { waitFor } from '../../support/wait-for.js';
import { devCerts, type DevCerts } from '../helpers/dev-certs.js';
import { gi, openRawMaster, servedGi, startDataTransfer, until, type RawMaster } from '../helpers/iec104-raw-master.js';
import { reportTally } from '../helpers/tally.js';

const DEVICES = 10_000;
const env = { ...infraEnv(), ...process.env } as Record<string, string>;
const dataDir = mkdtempSync(join(tmpdir(), 'iec104-service-data-'));
let certs: DevCerts;
let db: TestDatabase;
let proc: FaultlineProcess;
let base = '';
let iec104Port = 0;
let tried = 0;
let refused = 0;

const withOutput = (err: Error): never => { throw new Error(`${err.message}\n${proc.output().slice(-4000)}`); };
const open = (org: 'north' | 'south', ack = false): Promise<RawMaster> => openRawMaster(iec104Port, certs.master(org), ack);

/** The service's heap in use plus its external memory (encoded frames live in buffers), from its /metrics. */
async function serviceMemory(): Promise<number> {
  // A service busy for seconds on end (the old station answering every interrogation at once) does not hang the test.
  const text = await (await fetch(`${base}/metrics`, { signal: AbortSignal.timeout(10_000) })).text();
  const metric = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? Number.NaN);
  return metric('faultline_nodejs_heap_size_used_bytes') + metric('faultline_nodejs_external_memory_bytes');
}

test.before(async () => {
  await setup().catch((e: unknown) => { console.error('before:', e); throw e; });
});
async function setup(): Promise<void> {
  certs = devCerts('iec104-service-certs-');
  db = await createTestDatabase('iec104service');
  await importDemoData(db.pool);
  await seedOrganization(db.pool, 'north');
  await registerDevices(db.pool, { prefix: '8610400', devices: DEVICES, org: 'north', powerLines: ['north-F12', 'north-F7'], groups: ['north-east', 'north-west'] });
  const month = new Date().toISOString().slice(0, 7);
  await generateDeviceData(db.pool, { prefix: '8610400', devices: DEVICES, count: DEVICES, months: [month] });
  await db.pool.query(`insert into integrations (id, "OrganizationID", kind, channel, settings) values
    ('north-104', 'north', 'iec104', 'A', $1), ('south-104', 'south', 'iec104', 'A', $2)`,
  [JSON.stringify({ masterIdentity: 'scada.north.example', commonAddress: 1 }), JSON.stringify({ masterIdentity: 'scada.south.example', commonAddress: 1 })]);
  const [port, dnp3Port] = [await freePort(), await freePort()];
  iec104Port = await freePort();
  base = `http://127.0.0.1:${port}`;
  proc = startFaultline(['start', '--only', 'iec104,api'], {
    KAFKA_BROKERS: env.KAFKA_BROKERS!, SCHEMA_REGISTRY_URL: env.SCHEMA_REGISTRY_URL!, DATABASE_URL: db.url, DATA_DIR: dataDir,
    PORT: String(port), HOST: '127.0.0.1', DNP3_PORT: String(dnp3Port), IEC104_PORT: String(iec104Port),
    DNP3_TLS_KEY: certs.outstation.key, DNP3_TLS_CERT: certs.outstation.cert, DNP3_TLS_CA: certs.outstation.ca,
    FAULTLINE_SECRET_KEYS: `test:${Buffer.alloc(32, 7).toString('base64')}`, LOG_LEVEL: 'warn',
  });
  await waitFor('the IEC 104 station listed', () => /IEC 104 station on TCP 127\.0\.0\.1:\d+.*\(mutual TLS/.test(proc.output()), { timeoutMs: 180_000, intervalMs: 250 })
    .catch(withOutput);
}

test.after(async () => {
  await proc?.stop('SIGTERM');
  await db?.drop();
  certs?.remove();
  rmSync(dataDir, { recursive: true, force: true });
  reportTally('iec104-service', { attacksTried: tried, attacksRefused: refused });
});

test('2,000 interrogations in one write to a 10,000-device station: the connection closed, the service\'s memory bounded, south served', async () => {
  // North's interrogation answer is large (the feed has loaded every device): a GI terminates with thousands of frames.
  await servedGi(() => open('north', true), 'to north before the attack').catch(withOutput);
  await servedGi(() => open('south', true), 'before the attack').catch(withOutput);
  tried++;
  const baseline = await serviceMemory();
  let peak = baseline;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      peak = Math.max(peak, await serviceMemory().catch(() => peak));
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  try {
    const c = await open('north');
    await startDataTransfer(c);
    c.send(Buffer.concat(Array.from({ length: 2_000 }, (_, n) => gi(n))));
    await servedGi(() => open('south', true), 'during 2,000 interrogations').catch(withOutput);
    await until(() => c.isClosed(), 'the attacking connection closed', 120_000).catch(withOutput);
  } finally {
    sampling = false;
    await sampler;
  }
  peak = Math.max(peak, await serviceMemory());
  const grewMb = (peak - baseline) / 2 ** 20;
  console.log(`2,000 interrogations at ${DEVICES} devices: the service's heap and external memory grew ${grewMb.toFixed(1)} MB at most`);
  assert.ok(grewMb < 200, `grew ${grewMb.toFixed(1)} MB`);
  await waitFor('replyQueueFull counted for north', async () => (await db.pool.query(
    `select 1 from master_diagnostics where protocol = 'iec104' and integration_id = 'north-104' and reason = 'replyQueueFull'`)).rowCount === 1,
  { timeoutMs: 60_000, intervalMs: 500 }).catch(withOutput);
  assert.match(proc.output(), /replyQueueFull/, 'the reason logged');
  refused++;
  await servedGi(() => open('south', true), 'after 2,000 interrogations').catch(withOutput);
});

test.run();
