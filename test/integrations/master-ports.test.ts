// Which ports a SCADA protocol opens and what each serves (integrations/master-ports.ts,
// docs/decisions.md#dedicated-master-ports): pure rules, no servers. The running services are in
// test/security/scada-dedicated-ports.test.ts.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fixedPorts } from '../../config/settings.js';
import { namedIntegrations } from '../../integrations/master-certificate.js';
import type { MasterCertificate } from '../../integrations/master-certificate.js';
import { dedicatedPorts, servedOn } from '../../integrations/master-ports.js';

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

test.run();
