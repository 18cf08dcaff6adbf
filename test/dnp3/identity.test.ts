import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { integrationFromRow, matchIntegration, peerIdentity } from '../../dnp3/identity.js';
import type { Dnp3Integration } from '../../dnp3/identity.js';
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { devCerts } from '../helpers/dev-certs.js';

const north = integrationFromRow({ id: 'north-scada', OrganizationID: 'north', settings: { masterIdentity: 'scada.north.example' } })!;
const pinned: Dnp3Integration = { ...integrationFromRow({ id: 'p', OrganizationID: 'pin', settings: { masterIdentity: 'pin.example', certificateMode: 'pinned', tlsMinVersion: '1.2' } })!, pinnedFingerprint256: 'AA:BB' };
// Stand-ins for CAs: the issuer proof itself is tested with real certificates below and in test/integrations.
const SERVICE_CA = { name: 'service' } as unknown as X509Certificate;
const OTHER_CA = { name: 'other' } as unknown as X509Certificate;
const peer = (names: string[], cn?: string, fp = 'AA:BB', issuer = SERVICE_CA) => ({ dnsNames: names, fingerprint256: fp, issuedBy: (ca: X509Certificate) => ca === issuer, ...(cn ? { commonName: cn } : {}) });
const SERVICE = [SERVICE_CA];

test('settings defaults: outstation 10, master 1, unsolicited on, TLS 1.3, CA mode', () => {
  assert.equal(
    [north.outstationAddress, north.masterAddress, north.unsolicited, north.tlsMinVersion, north.certificateMode, north.analogOnly],
    [10, 1, true, 'TLSv1.3', 'ca', false],
  );
  assert.is(integrationFromRow({ id: 'x', OrganizationID: 'o', settings: {} }), undefined);
  assert.is(integrationFromRow({ id: 'x', OrganizationID: 'o', settings: { masterIdentity: 'm', outstationAddress: 70000 } })!.outstationAddress, 10);
});

test('SAN names decide; the CN counts only without a DNS SAN', () => {
  assert.ok('integration' in matchIntegration(peer(['scada.north.example']), 'TLSv1.3', [north], undefined, SERVICE));
  assert.ok('integration' in matchIntegration(peer([], 'scada.north.example'), 'TLSv1.3', [north], undefined, SERVICE));
  assert.equal(matchIntegration(peer(['other.example'], 'scada.north.example'), 'TLSv1.3', [north], undefined, SERVICE), { refused: 'unknownIdentity' });
  assert.equal(matchIntegration(undefined, 'TLSv1.3', [north], undefined, SERVICE), { refused: 'noCertificate' });
});

test('TLS version floor per integration; pinned mode compares the fingerprint', () => {
  assert.equal(matchIntegration(peer(['scada.north.example']), 'TLSv1.2', [north], undefined, SERVICE), { refused: 'tlsVersion' });
  assert.ok('integration' in matchIntegration(peer(['pin.example']), 'TLSv1.2', [pinned]));
  assert.equal(matchIntegration(peer(['pin.example'], undefined, 'CC:DD'), 'TLSv1.3', [pinned]), { refused: 'pinMismatch' });
});

test('two integrations claiming one identity are refused rather than guessed', () => {
  assert.equal(matchIntegration(peer(['scada.north.example']), 'TLSv1.3', [north, { ...north, id: 'dup', organizationId: 'south' }], undefined, SERVICE), { refused: 'ambiguousIdentity' });
});

test('peerIdentity reads CN and DNS SANs from the leaf X509Certificate', () => {
  const certs = devCerts('dnp3-identity-');
  try {
    const p = peerIdentity(new X509Certificate(readFileSync(certs.pem('rogue.example'))));
    assert.equal([p.commonName, p.dnsNames], ['rogue.example', ['scada.north.example']]);
    assert.ok(p.issuedBy(new X509Certificate(readFileSync(certs.pem('rogue-ca')))));
    assert.not.ok(p.issuedBy(new X509Certificate(readFileSync(certs.pem('ca')))));
  } finally {
    certs.remove();
  }
});

test('CA mode: one of the integration\'s own CAs, else the service CA, must have signed the leaf', () => {
  assert.equal(matchIntegration(peer(['scada.north.example'], undefined, 'AA:BB', OTHER_CA), 'TLSv1.3', [north], undefined, SERVICE), { refused: 'wrongIssuer' });
  const own = { ...north, issuerCas: [OTHER_CA] };
  assert.ok('integration' in matchIntegration(peer(['scada.north.example'], undefined, 'AA:BB', OTHER_CA), 'TLSv1.3', [own], undefined, SERVICE));
  assert.equal(matchIntegration(peer(['scada.north.example']), 'TLSv1.3', [own], undefined, SERVICE), { refused: 'wrongIssuer' }, 'its own CA replaces the service CA');
  assert.equal(matchIntegration(peer(['scada.north.example']), 'TLSv1.3', [north]), { refused: 'wrongIssuer' }, 'no CA at all: nobody');
});

test.run();
