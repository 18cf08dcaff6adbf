// The notification client end to end (issue 8, client and delivery): the fixture messages go through the
// real stages into the outbox; the delivery worker sends every row to a real SOAP endpoint on loopback
// that parses it with zeep against the official OA_Server WSDL of its version. Checked per operation and
// version: namespace, SOAPAction, MultiSpeakMsgHeader, payload values against the outbox row, schema
// validity, and order per device.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { OPERATIONS } from '../../../multispeak/operations.js';
import { NAMESPACE, VERSIONS } from '../../../multispeak/versions.js';
import { startDeliveryWorker } from '../../../multispeak/delivery/index.js';
import { createTestDatabase, type TestDatabase } from '../../../support/database.js';
import { walkFixturesInProcess } from '../../../support/pipeline.js';
import { importDemoData, testKeyring } from '../../../support/reference-data.js';
import { waitFor } from '../../../support/wait-for.js';
import { ensurePython } from '../../multispeak/python.js';
import { addIntegration, passwordOf } from './integrations.js';
import { startOms, type Oms, type Received } from './oms.js';

const test = suite('multispeak delivery');
let db: TestDatabase;
let oms: Oms;
const slug = (op: string, v: string) => `t-${op.toLowerCase()}-${v.replace('.', '')}`;

interface OutboxRow { id: number; integration_id: string; IMEINumber: string; kind: string; payload: Record<string, unknown> }

test.before(async () => {
  await ensurePython();
  db = await createTestDatabase('msdelivery');
  await importDemoData(db.pool);
  oms = await startOms();
  // The fixture integrations point at ports nobody listens on; this suite uses its own.
  await db.pool.query(`update integrations set enabled = false where kind = 'multispeak'`);
  for (const version of VERSIONS) for (const operation of OPERATIONS) await addIntegration(db.pool, { id: slug(operation, version), operation, version, endpoint: oms.url });
  await walkFixturesInProcess(db.pool);
});
test.after(async () => {
  await oms?.stop();
  await db?.drop();
});

test('the fixture walk fills the outbox: status rows for every integration, check-ins for the analog one only', async () => {
  const { rows } = await db.pool.query<{ integration_id: string; kind: string; n: number }>(
    'select integration_id, kind, count(*)::int as n from outbox group by 1, 2 order by 1, 2');
  for (const version of VERSIONS) {
    for (const operation of OPERATIONS) {
      const mine = rows.filter((r) => r.integration_id === slug(operation, version));
      assert.ok(mine.some((r) => r.kind === 'status' && r.n > 0), `${operation} ${version}: no status rows`);
      assert.is(mine.some((r) => r.kind === 'checkin'), operation === 'SCADAAnalogChangedNotificationByPointID', `${operation} ${version}: check-ins`);
    }
  }
});

test('every row is delivered; the OMS parsed each with the official WSDL and checks pass', async () => {
  // Every device is renamed and moved after its check-ins: spec 2.2's CurrentName/CurrentLat/CurrentLong are the
  // check-in-time copies, so the notifications must still say what the check-in saw (checkPayload compares).
  await db.pool.query(`update device_information set "Real_Name" = 'Renamed later', "Lat" = 1.5, "Long" = 2.5`);
  const worker = startDeliveryWorker({ pool: db.pool, keyring: testKeyring(), pollMs: 20, backoff: { initialMs: 10, maxMs: 50 } });
  try {
    await waitFor('every outbox row delivered', async () => {
      const { rows } = await db.pool.query<{ n: number }>('select count(*)::int as n from outbox where delivered_at is null');
      return rows[0]!.n === 0;
    }, { timeoutMs: 60_000, intervalMs: 100 });
  } finally {
    await worker.stop();
  }
  const { rows: outbox } = await db.pool.query<OutboxRow>('select id, integration_id, "IMEINumber", kind, payload from outbox order by id');
  const received = await oms.received();
  assert.is(received.length, outbox.length, 'each row received exactly once');
  const byMessageId = new Map<string, Received>(received.map((r) => [r.header.MessageID!, r]));
  for (const row of outbox) {
    const [version, operation] = [...VERSIONS].flatMap((v) => OPERATIONS.map((o) => [v, o] as const)).find(([v, o]) => slug(o, v) === row.integration_id)!;
    const got = byMessageId.get(`faultline-${row.integration_id}-${row.id}`);
    assert.ok(got, `row ${row.id} received`);
    const what = `${operation} ${version} row ${row.id}`;
    assert.is(got.version, version, what);
    assert.is(got.operation, operation, what);
    assert.is(got.soapAction, `"${NAMESPACE[version]}/${operation}"`, what);
    assert.is(got.soapAction, `"${got.expectedSoapAction}"`, `${what}: SOAPAction of the official binding`);
    assert.equal(got.schemaErrors, [], what);
    assert.is(got.header.UserID, `user-${row.integration_id}`);
    assert.is(got.header.Pwd, passwordOf(row.integration_id));
    if (version === '4.1') assert.is(got.header.BuildString, 'Release');
    else assert.is(got.header.Version, '3.0');
    checkPayload(got, row, what);
  }
  assert.ok(outbox.some((r) => typeof r.payload.CurrentLat === 'number' && r.integration_id.startsWith('t-assessmentlocation')), 'some located assessment rows were checked');
  // In order per device and integration: arrival order of MessageIDs follows outbox ids.
  const seen = new Map<string, number>();
  for (const r of received) {
    const row = outbox.find((o) => `faultline-${o.integration_id}-${o.id}` === r.header.MessageID)!;
    const key = `${row.integration_id}/${row.IMEINumber}`;
    assert.ok((seen.get(key) ?? 0) < row.id, `${key}: row ${row.id} after ${seen.get(key)}`);
    seen.set(key, row.id);
  }
});

function first(body: Record<string, unknown>, ...path: string[]): Record<string, unknown> {
  let node: unknown = body;
  for (const key of path) {
    node = (node as Record<string, unknown>)[key];
    if (Array.isArray(node)) node = node[0];
  }
  return node as Record<string, unknown>;
}

function checkPayload(got: Received, row: OutboxRow, what: string): void {
  const p = row.payload;
  const fault = p.ActualOngoingFault as number;
  const date = new Date(p.date as string).getTime();
  const object = {
    SCADAStatusChangedNotificationByPointID: () => first(got.body, 'scadaStatus'),
    SCADAStatusChangedNotification: () => first(got.body, 'scadaStatuses', 'scadaStatus'),
    AssessmentLocationChangedNotification: () => first(got.body, 'locations', 'assessmentLocation'),
    ODEventNotification: () => first(got.body, 'ODEvents', 'outageDetectionEvent'),
    SCADAAnalogChangedNotificationByPointID: () => first(got.body, 'scadaAnalog'),
  }[got.operation as (typeof OPERATIONS)[number]]();
  assert.is(object.objectID, row.IMEINumber, `${what}: objectID is the IMEI`);
  if (got.version === '4.1' && got.operation !== 'SCADAStatusChangedNotification') assert.is(object.objectName, p.Real_Name, `${what}: objectName`);
  switch (got.operation) {
    case 'SCADAStatusChangedNotificationByPointID':
    case 'SCADAStatusChangedNotification':
      assert.is(object.status, fault > 0 ? 'Open' : 'Closed', what);
      assert.is(new Date(object.timeStamp as string).getTime(), date, what);
      break;
    case 'SCADAAnalogChangedNotificationByPointID':
      assert.is(Number(got.version === '4.1' ? (object.value as Record<string, unknown>)._value_1 : object.value), fault, what);
      break;
    case 'ODEventNotification': {
      assert.is(object.outageEventType, fault > 0 ? 'Outage' : 'Restoration', what);
      assert.is(object[got.version === '4.1' ? 'outageDetectionDeviceID' : 'outageDetectDeviceID'], row.IMEINumber, what);
      const events = (p.events ?? []) as { EventType: string }[];
      if (events.length) assert.ok(events.some((e) => e.EventType === object.problemCode), `${what}: problemCode ${String(object.problemCode)}`);
      assert.is(got.body.transactionID, `faultline-${row.integration_id}-${row.id}`);
      break;
    }
    case 'AssessmentLocationChangedNotification': {
      const assessment = first(object, 'assessmentList', 'assessment');
      assert.is(assessment.category, fault > 0 ? 'Fault' : 'Normal', what);
      assert.is(assessment.elementID, row.IMEINumber, what);
      if (typeof p.CurrentLat === 'number') {
        const gps = first(object, got.version === '4.1' ? 'gpsPoint' : 'gpsLocation');
        assert.equal([Number(gps.latitude), Number(gps.longitude)], [p.CurrentLat, p.CurrentLong], `${what}: check-in-time location`);
      }
      break;
    }
  }
}

test.run();
