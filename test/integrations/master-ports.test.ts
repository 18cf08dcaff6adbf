// Which ports a SCADA protocol opens and what each serves (integrations/master-ports.ts,
// docs/decisions.md#dedicated-master-ports): pure rules, no servers. The running services are in
// test/security/scada-dedicated-ports.test.ts.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fixedPorts, loadSettings } from '../../config/settings.js';
import { namedIntegrations } from '../../integrations/master-certificate.js';
import type { MasterCertificate } from '../../integrations/master-certificate.js';
import { dedicatedPortRefusal, dedicatedPorts, MAX_DEDICATED_PORTS, servedOn } from '../../integrations/master-ports.js';

const integration = (id: string, port?: number): MasterCertificate => ({ id, masterIdentity: `${id}.example`, tlsMinVersion: 'TLSv1.2', certificateMode: 'ca', ...(port !== undefined ? { port } : {}) });
const all = [integration('a'), integration('b', 30001), integration('c', 30001), integration('d', 30000), integration('e', 20000)];

test('the dedicated ports: distinct, ascending, the shared port not among them', () => {
  assert.equal(dedicatedPorts(all, 20000), [30000, 30001]);
  assert.equal(dedicatedPorts([integration('a')], 20000), []);
});

test('a dedicated port serves only the integrations naming it; the shared port only those without one (or naming it)', () => {
  assert.equal(servedOn(all, 30001).map((i) => i.id), ['b', 'c']);
  assert.equal(servedOn(all, 30000).map((i) => i.id), ['d']);
  // The shared listener is handed every integration; namedIntegrations leaves out those with another port.
  const onShared = (id: string) => namedIntegrations({ dnsNames: [`${id}.example`] }, all, 20000).map((i) => i.id);
  assert.equal(['a', 'b', 'd', 'e'].flatMap(onShared), ['a', 'e']);
});

test('the service\'s fixed ports, by port: the setting that holds it (METRICS_PORT only when set)', () => {
  assert.equal([...fixedPorts({ httpPort: 8080, metricsPort: null, dnp3: { port: 20000, plainIntegration: null }, iec104Port: 2404 }).keys()], [8080, 20000, 2404]);
  assert.is(fixedPorts({ httpPort: 8080, metricsPort: 9464, dnp3: { port: 20000, plainIntegration: null }, iec104Port: 2404 }).get(9464), 'METRICS_PORT');
});

test('a dedicated port is refused when it is one of the service\'s ports, outside SCADA_DEDICATED_PORTS, or past the cap', () => {
  const rules = { range: { from: 20001, to: 20999 }, reserved: new Map([[20500, 'PORT (the API)']]) };
  assert.is(dedicatedPortRefusal(20001, 0, rules), undefined);
  assert.is(dedicatedPortRefusal(20999, 0, rules), undefined);
  assert.is(dedicatedPortRefusal(20500, 0, rules), 'it is PORT (the API)');
  for (const squat of [5432, 9092, 8081, 54329, 21000]) assert.is(dedicatedPortRefusal(squat, 0, rules), 'it is outside SCADA_DEDICATED_PORTS (20001-20999)', String(squat));
  assert.is(dedicatedPortRefusal(20002, MAX_DEDICATED_PORTS - 1, rules), undefined);
  assert.is(dedicatedPortRefusal(20002, MAX_DEDICATED_PORTS, rules), `more than ${MAX_DEDICATED_PORTS} dedicated ports for one protocol`);
});

test('SCADA_DEDICATED_PORTS: a range "from-to", 20001-20999 unless set; anything else refused at start', () => {
  assert.equal(loadSettings({}).scadaDedicatedPorts, { from: 20001, to: 20999 });
  assert.equal(loadSettings({ SCADA_DEDICATED_PORTS: '30000-30010' }).scadaDedicatedPorts, { from: 30000, to: 30010 });
  for (const bad of ['20999-20001', '0-10', '1-70000', '20001', 'any']) assert.throws(() => loadSettings({ SCADA_DEDICATED_PORTS: bad }), /SCADA_DEDICATED_PORTS must be a port range/, bad);
});

test.run();
