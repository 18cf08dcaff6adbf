// namedIntegrations (integrations/master-certificate.ts): which integrations a certificate names, the rule the
// mapping uses and the one that decides whose diagnostics a TLS refusal counts in (docs/decisions.md#master-diagnostics).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { matchMaster, namedIntegrations, type MasterCertificate } from '../../integrations/master-certificate.js';

const base = { tlsMinVersion: 'TLSv1.2', certificateMode: 'ca' } as const;
const north: MasterCertificate = { ...base, id: 'north-104', masterIdentity: 'scada.north.example' };
const own: MasterCertificate = { ...base, id: 'north-own-port', masterIdentity: 'scada.own.example', port: 2405 };
const all = [north, own];
const ids = (l: MasterCertificate[]) => l.map((i) => i.id);

test('DNS SANs name integrations; the CN only when the certificate has no DNS SAN', () => {
  assert.equal(ids(namedIntegrations({ dnsNames: ['scada.north.example'], fingerprint256: '' }, all)), ['north-104']);
  assert.equal(ids(namedIntegrations({ commonName: 'scada.north.example', dnsNames: [], fingerprint256: '' }, all)), ['north-104']);
  assert.equal(ids(namedIntegrations({ commonName: 'scada.north.example', dnsNames: ['other.example'], fingerprint256: '' }, all)), []);
});

test('an integration with its own port is named only on that port (or when no port is given)', () => {
  const peer = { dnsNames: ['scada.own.example'], fingerprint256: '' };
  assert.equal(ids(namedIntegrations(peer, all, 2404)), []);
  assert.equal(ids(namedIntegrations(peer, all, 2405)), ['north-own-port']);
  assert.equal(ids(namedIntegrations(peer, all)), ['north-own-port']);
});

test('two integrations claiming one identity are both named, and the mapping refuses it as ambiguous', () => {
  const twin = { ...north, id: 'south-104' };
  const peer = { dnsNames: ['scada.north.example'], fingerprint256: '' };
  assert.equal(ids(namedIntegrations(peer, [north, twin])), ['north-104', 'south-104']);
  assert.equal(matchMaster(peer, 'TLSv1.2', [north, twin]), { refused: 'ambiguousIdentity' });
});

test.run();
