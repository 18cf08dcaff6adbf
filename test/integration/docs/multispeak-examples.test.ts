// docs/integration.md "MultiSpeak envelopes" against real SOAP servers. Each sample request to our endpoint is
// posted as printed (its placeholder password made real, as the imported example's) to the product's SOAP server
// (createApp over HTTP, docs/examples/import.json imported) and its answer must equal the page's sample response
// (the time stamp aside). Each notification sample (which
// test/docs/integration.test.ts proves is the envelope faultline builds) is posted to an OA_Server that parses
// it with zeep against the official WSDL of its version and validates it with lxml; the answer must have the
// shape of the page's sample response, and the request no schema error.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { serve, type ServerType } from '@hono/node-server';
import { createApp } from '../../../api/app.js';
import { SERVED_OPERATIONS } from '../../../api/soap/operations.js';
import { OPERATIONS } from '../../../multispeak/operations.js';
import { soapAction, VERSIONS } from '../../../multispeak/versions.js';
import { importReferenceData } from '../../../reference-data/index.js';
import { createTestDatabase, type TestDatabase } from '../../../support/database.js';
import { testKeyring } from '../../../support/reference-data.js';
import { docSample, exampleImport, withRealSecrets } from '../../helpers/integration-doc.js';
import { shapeOf, xmlTree, type XmlNode } from '../../helpers/xml-tree.js';
import { ensurePython } from '../../multispeak/python.js';
import { startOms, type Oms } from '../multispeak/oms.js';

const test = suite('docs/integration.md: MultiSpeak samples');
let db: TestDatabase;
let server: ServerType | undefined;
let base = '';
let oms: Oms;

/** The tree without the header's TimeStamp: the one value that differs on every call. */
function timeless(n: XmlNode): XmlNode {
  const { TimeStamp: _drop, ...attrs } = n.attrs;
  return { ...n, attrs: n.name.endsWith('}MultiSpeakMsgHeader') ? attrs : n.attrs, children: n.children.map(timeless) };
}

async function post(url: string, body: string, action: string): Promise<{ status: number; text: string }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'text/xml; charset=utf-8', soapaction: action }, body });
  return { status: res.status, text: await res.text() };
}

test.before(async () => {
  await ensurePython();
  db = await createTestDatabase('docsoap');
  await importReferenceData(db.pool, exampleImport(), { keyring: testKeyring() });
  const app = createApp({ readiness: {}, pool: db.pool, jwtSecret: new TextEncoder().encode('doc-soap-test-secret-of-at-least-32-bytes') });
  const port = await new Promise<number>((resolve) => {
    server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => resolve(info.port));
  });
  base = `http://127.0.0.1:${port}`;
  oms = await startOms();
});
test.after(async () => {
  await new Promise<void>((done) => (server ? server.close(() => done()) : done()));
  await oms?.stop();
  await db?.drop();
});

for (const version of VERSIONS) {
  for (const operation of SERVED_OPERATIONS) {
    test(`our endpoint, ${version} ${operation}: the sample request gets the sample response`, async () => {
      // Logged in as the example's admin, whose password the suite imported made real (withRealSecrets).
      const res = await post(`${base}/soap`, withRealSecrets(docSample(`server-${version}-${operation}-request`)), soapAction(version, operation));
      assert.is(res.status, 200, res.text);
      assert.equal(timeless(xmlTree(res.text)), timeless(xmlTree(docSample(`server-${version}-${operation}-response`))));
    });
  }
}

test('the OMS answers every notification sample with the sample response, and finds no schema error', async () => {
  for (const version of VERSIONS) {
    for (const operation of OPERATIONS) {
      const res = await post(oms.url, docSample(`notification-${version}-${operation}-request`), soapAction(version, operation));
      assert.is(res.status, 200, `${version} ${operation}: ${res.text}`);
      assert.equal(shapeOf(xmlTree(res.text)), shapeOf(xmlTree(docSample(`notification-${version}-${operation}-response`))), `${version} ${operation}`);
    }
  }
  const received = await oms.received();
  assert.is(received.length, VERSIONS.length * OPERATIONS.length);
  for (const r of received) {
    assert.equal(r.schemaErrors, [], `${r.version} ${r.operation}`);
    assert.is(r.soapAction, r.expectedSoapAction.replace(/^"?/, '"').replace(/"?$/, '"'));
  }
});

test.run();
