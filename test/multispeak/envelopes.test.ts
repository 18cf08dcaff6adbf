// Every envelope faultline builds, for each operation in each version, validates against the XML Schema
// inside the reference OA_Server WSDL of that version (lxml), with the SOAPAction of the WSDL's binding. The
// reference WSDLs (test/multispeak/wsdl/) hold the official documents' facts for these operations.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { buildRequest } from '../../multispeak/build.js';
import { notificationFromPayload } from '../../multispeak/outbox-payload.js';
import { OPERATIONS } from '../../multispeak/operations.js';
import { NAMESPACE, VERSIONS } from '../../multispeak/versions.js';
import { clearPayload, fault } from './notifications.js';
import { ensurePython, runPythonJson, WSDL_DIR } from './python.js';

const test = suite('multispeak envelopes');
const now = new Date('2026-11-20T08:30:05.000Z');
const credentials = { userId: 'fi-north', password: 'north-oms-secret' };

test.before(async () => { await ensurePython(); });

test('each operation, each version, with and without a fault, validates against the reference OA_Server schema', async () => {
  const cases = [];
  for (const version of VERSIONS) {
    for (const operation of OPERATIONS) {
      for (const [label, n] of [['fault', fault()], ['clear', notificationFromPayload('m-2', 'checkin', clearPayload)]] as const) {
        const { xml, soapAction } = buildRequest(version, operation, n, credentials, now, 'North Utility');
        cases.push({ name: `${version} ${operation} ${label}`, wsdl: join(WSDL_DIR, version, 'OA_Server.wsdl'), namespace: NAMESPACE[version], operation, soapAction, xml });
      }
    }
  }
  const results = await runPythonJson<{ name: string; errors: string[] }[]>('validate_envelopes.py', cases);
  assert.is(results.length, 20);
  const bad = results.filter((r) => r.errors.length > 0);
  assert.equal(bad, [], JSON.stringify(bad, null, 1));
});

test('header carries credentials, a stable MessageID and the version fields', () => {
  const a = buildRequest('4.1', 'ODEventNotification', fault(), credentials, now).xml;
  const b = buildRequest('4.1', 'ODEventNotification', fault(), credentials, new Date(now.getTime() + 60_000)).xml;
  for (const attr of ['MajorVersion="4"', 'BuildString="Release"', 'UserID="fi-north"', 'Pwd="north-oms-secret"', 'MessageID="faultline-north-oms-42"']) assert.ok(a.includes(attr), attr);
  assert.ok(/MessageID="faultline-north-oms-42"/.test(b), 'a retry keeps the MessageID');
  const v3 = buildRequest('3.0', 'SCADAStatusChangedNotification', fault(), credentials, now).xml;
  assert.ok(v3.includes('xmlns:m="http://www.multispeak.org/Version_3.0"'));
  assert.ok(v3.includes('Version="3.0"') && !v3.includes('MajorVersion'));
});

test('payload values: objectID is the IMEI, a fault opens the point, the newest event names the problem', () => {
  const xml = buildRequest('4.1', 'ODEventNotification', fault(), credentials, now).xml;
  assert.ok(xml.includes('<m:outageDetectionEvent objectID="861000000000100"'));
  assert.ok(xml.includes('<m:outageEventType>Outage</m:outageEventType>'));
  assert.ok(xml.includes('<m:problemCode>PFault</m:problemCode>'));
  const status = buildRequest('4.1', 'SCADAStatusChangedNotificationByPointID', fault(), credentials, now).xml;
  assert.ok(status.includes('<m:status>Open</m:status>'));
  const clear = buildRequest('4.1', 'SCADAStatusChangedNotificationByPointID', notificationFromPayload('m', 'status', clearPayload), credentials, now).xml;
  assert.ok(clear.includes('<m:status>Closed</m:status>'));
});

test.run();
