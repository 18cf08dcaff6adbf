import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { integrationFromRow, matchIntegration, peerIdentity } from '../../dnp3/identity.js';
import type { Dnp3Integration } from '../../dnp3/identity.js';

const north = integrationFromRow({ id: 'north-scada', OrganizationID: 'north', settings: { masterIdentity: 'scada.north.example' } })!;
const pinned: Dnp3Integration = { ...integrationFromRow({ id: 'p', OrganizationID: 'pin', settings: { masterIdentity: 'pin.example', certificateMode: 'pinned', tlsMinVersion: '1.2' } })!, pinnedFingerprint256: 'AA:BB' };
const peer = (names: string[], cn?: string, fp = 'AA:BB') => ({ dnsNames: names, fingerprint256: fp, ...(cn ? { commonName: cn } : {}) });

test('settings defaults: outstation 10, master 1, unsolicited on, TLS 1.3, CA mode', () => {
  assert.equal(
    [north.outstationAddress, north.masterAddress, north.unsolicited, north.tlsMinVersion, north.certificateMode, north.analogOnly],
    [10, 1, true, 'TLSv1.3', 'ca', false],
  );
  assert.is(integrationFromRow({ id: 'x', OrganizationID: 'o', settings: {} }), undefined);
  assert.is(integrationFromRow({ id: 'x', OrganizationID: 'o', settings: { masterIdentity: 'm', outstationAddress: 70000 } })!.outstationAddress, 10);
});

test('SAN names decide; the CN counts only without a DNS SAN', () => {
  assert.ok('integration' in matchIntegration(peer(['scada.north.example']), 'TLSv1.3', [north]));
  assert.ok('integration' in matchIntegration(peer([], 'scada.north.example'), 'TLSv1.3', [north]));
  assert.equal(matchIntegration(peer(['other.example'], 'scada.north.example'), 'TLSv1.3', [north]), { refused: 'unknownIdentity' });
  assert.equal(matchIntegration(undefined, 'TLSv1.3', [north]), { refused: 'noCertificate' });
});

test('TLS version floor per integration; pinned mode compares the fingerprint', () => {
  assert.equal(matchIntegration(peer(['scada.north.example']), 'TLSv1.2', [north]), { refused: 'tlsVersion' });
  assert.ok('integration' in matchIntegration(peer(['pin.example']), 'TLSv1.2', [pinned]));
  assert.equal(matchIntegration(peer(['pin.example'], undefined, 'CC:DD'), 'TLSv1.3', [pinned]), { refused: 'pinMismatch' });
});

test('two integrations claiming one identity are refused rather than guessed', () => {
  assert.equal(matchIntegration(peer(['scada.north.example']), 'TLSv1.3', [north, { ...north, id: 'dup', organizationId: 'south' }]), { refused: 'ambiguousIdentity' });
});

test('peerIdentity reads CN and DNS SANs from a Node certificate', () => {
  assert.equal(peerIdentity({ subject: { CN: 'a' }, subjectaltname: 'DNS:b, IP Address:127.0.0.1, DNS:c', fingerprint256: 'F' }), { commonName: 'a', dnsNames: ['b', 'c'], fingerprint256: 'F', issuers256: [] });
});

test('CA mode with trusted issuers: the chain must contain one of them', () => {
  const strict = { ...north, trustedCa256: ['CA:01'] };
  assert.ok('integration' in matchIntegration({ ...peer(['scada.north.example']), issuers256: ['ca:01'] }, 'TLSv1.3', [strict]));
  assert.equal(matchIntegration({ ...peer(['scada.north.example']), issuers256: ['CA:02'] }, 'TLSv1.3', [strict]), { refused: 'wrongIssuer' });
});

test.run();
