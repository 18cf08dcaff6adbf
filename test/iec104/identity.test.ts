import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { X509Certificate } from 'node:crypto';
import { iec104IntegrationFromRow, matchIec104Integration } from '../../iec104/identity.js';
import { DEFAULT_TIMERS } from '../../iec104/station/station.js';

const row = (settings: unknown) => ({ id: 'i', OrganizationID: 'north', settings });

test('an iec104 row: standard defaults (k 12, w 8, t0..t3 30/15/10/20 s), CA 1, TLS 1.2; configured values in seconds', () => {
  const d = iec104IntegrationFromRow(row({ masterIdentity: 'scada.north.example' }))!;
  assert.equal([d.commonAddress, d.timers, d.tlsMinVersion, d.certificateMode], [1, DEFAULT_TIMERS, 'TLSv1.2', 'ca']);
  assert.equal(DEFAULT_TIMERS, { k: 12, w: 8, t0Ms: 30_000, t1Ms: 15_000, t2Ms: 10_000, t3Ms: 20_000 });
  const c = iec104IntegrationFromRow(row({ masterIdentity: 'm', commonAddress: 300, k: 20, w: 10, t1: 30, t3: 60, tlsMinVersion: '1.3' }))!;
  assert.equal([c.commonAddress, c.timers.k, c.timers.w, c.timers.t1Ms, c.timers.t2Ms, c.timers.t3Ms, c.tlsMinVersion], [300, 20, 10, 30_000, 10_000, 60_000, 'TLSv1.3']);
  assert.is(iec104IntegrationFromRow(row({})), undefined);
  assert.is(iec104IntegrationFromRow(row({ masterIdentity: 'm', commonAddress: 0xffff }))!.commonAddress, 1);
});

test('the shared certificate model maps a 104 master as it maps a DNP3 one', () => {
  const i = iec104IntegrationFromRow(row({ masterIdentity: 'scada.north.example' }))!;
  // A stand-in CA: the issuer proof is tested with real certificates in test/integrations/master-certificate.test.ts.
  const SERVICE_CA = {} as X509Certificate;
  const peer = { dnsNames: ['scada.north.example'], fingerprint256: 'AA', issuedBy: (ca: X509Certificate) => ca === SERVICE_CA };
  assert.equal(matchIec104Integration(peer, 'TLSv1.2', [i], undefined, [SERVICE_CA]), { integration: i });
  assert.equal(matchIec104Integration(undefined, 'TLSv1.2', [i]), { refused: 'noCertificate' });
  assert.equal(matchIec104Integration({ ...peer, dnsNames: ['other'] }, 'TLSv1.2', [i]), { refused: 'unknownIdentity' });
});

test.run();
