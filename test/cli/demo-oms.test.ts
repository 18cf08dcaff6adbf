// The demo OMS of `npm start`: which endpoints it serves, and that the delivery worker's own POST and answer
// check accept what it answers (the end-to-end path is in test/e2e/embedded-start.test.ts).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { servableEndpoints, soapOperation, startDemoOms } from '../../cli/demo-oms.js';
import { DEMO_DATA_FILE } from '../../cli/demo.js';
import { checkAnswer } from '../../multispeak/delivery/answer.js';
import { postSoap } from '../../multispeak/delivery/http-post.js';
import { freePort } from '../../support/process.js';

const RECORDED = new URL('../multispeak/recorded/', import.meta.url);
const POST = { timeoutMs: 5000, connectTimeoutMs: 2000, tls: {} };

test('serves the plain-HTTP loopback endpoints of the demo data, nothing else', () => {
  assert.equal(servableEndpoints(JSON.parse(readFileSync(DEMO_DATA_FILE, 'utf8'))), [
    { integration: 'north-oms', endpoint: 'http://127.0.0.1:18080/soap/OA_Server' },
    { integration: 'south-oms', endpoint: 'http://127.0.0.1:18180/soap/OA_Server' },
  ]);
  assert.equal(servableEndpoints({ integrations: [
    { id: 'remote', kind: 'multispeak', endpoint: 'http://oms.example:8080/OA_Server' },
    { id: 'tls', kind: 'multispeak', endpoint: 'https://127.0.0.1:8443/OA_Server' },
    { id: 'no-port', kind: 'multispeak', endpoint: 'http://localhost/OA_Server' },
    { id: 'bad', kind: 'multispeak', endpoint: 'not a url' },
    { id: 'scada', kind: 'dnp3' },
  ] }), []);
  assert.equal(servableEndpoints(null), []);
  assert.equal(servableEndpoints({ integrations: 'x' }), []);
});

test('soapOperation reads the first element of the Body', () => {
  assert.is(soapOperation('<s:Envelope xmlns:s="x"><s:Header/><s:Body>\n  <ms:ODEventNotification xmlns:ms="y"/></s:Body></s:Envelope>'), 'ODEventNotification');
  assert.is(soapOperation('<Envelope><Body><Ping/></Body></Envelope>'), 'Ping');
  assert.is(soapOperation('<Envelope/>'), null);
});

test('the delivery worker\'s POST and answer check accept every recorded notification; other requests get 400', async () => {
  const ports = [await freePort(), await freePort()];
  const endpoints = [
    { integration: 'a', endpoint: `http://127.0.0.1:${ports[0]}/soap/OA_Server` },
    { integration: 'b', endpoint: `http://127.0.0.1:${ports[0]}/other/OA_Server` },
    { integration: 'c', endpoint: `http://127.0.0.1:${ports[1]}/soap/OA_Server` },
  ];
  const oms = await startDemoOms(endpoints);
  try {
    assert.equal(oms.serving.map((e) => e.integration).sort(), ['a', 'b', 'c']);
    for (const version of ['3.0', '4.1']) {
      for (const operation of ['ODEventNotification', 'SCADAStatusChangedNotification', 'SCADAAnalogChangedNotificationByPointID']) {
        const xml = readFileSync(new URL(`${version}/${operation}.xml`, RECORDED), 'utf8');
        for (const { endpoint } of endpoints) {
          const answer = await postSoap(endpoint, xml, `http://www.multispeak.org/${operation}`, POST);
          assert.is(answer.status, 200, `${version} ${operation} ${endpoint}`);
          checkAnswer(answer);
          assert.match(answer.body, `<${operation}Response`);
        }
      }
    }
    const wrongPath = await fetch(`http://127.0.0.1:${ports[0]}/nope`, { method: 'POST', body: '<x/>' });
    assert.is(wrongPath.status, 400);
    const notSoap = await fetch(endpoints[0]!.endpoint, { method: 'POST', body: 'hello' });
    assert.is(notSoap.status, 400);
    assert.is((await fetch(endpoints[0]!.endpoint)).status, 400);
  } finally {
    await oms.close();
  }
});

test('a port already in use is left alone', async () => {
  const port = await freePort();
  const first = await startDemoOms([{ integration: 'first', endpoint: `http://127.0.0.1:${port}/a` }]);
  try {
    const second = await startDemoOms([{ integration: 'second', endpoint: `http://127.0.0.1:${port}/b` }]);
    assert.equal(second.serving, []);
    await second.close();
  } finally {
    await first.close();
  }
});

test.run();
