// namedIntegrations (integrations/master-certificate.ts): which integrations a certificate names, the rule the
// mapping uses and the one that decides whose diagnostics a TLS refusal counts in (docs/decisions.md#master-diagnostics).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { matchMaster, namedIntegrations, namesClaimedByOthers, peerIdentity, provenIssuer, type MasterCertificate } from '../../integrations/master-certificate.js';
import { certificatesIn } from '../../integrations/master-settings.js';
import { devCerts } from '../helpers/dev-certs.js';
import { forgeChain } from '../helpers/forged-chain.js';

const base = { tlsMinVersion: 'TLSv1.2', certificateMode: 'ca' } as const;
const north: MasterCertificate = { ...base, id: 'north-104', masterIdentity: 'scada.north.example' };
const own: MasterCertificate = { ...base, id: 'north-own-port', masterIdentity: 'scada.own.example', port: 2405 };
const all = [north, own];
const ids = (l: MasterCertificate[]) => l.map((i) => i.id);

test('DNS SANs name integrations; the CN only when the certificate has no DNS SAN', () => {
  assert.equal(ids(namedIntegrations({ dnsNames: ['scada.north.example'] }, all)), ['north-104']);
  assert.equal(ids(namedIntegrations({ commonName: 'scada.north.example', dnsNames: [] }, all)), ['north-104']);
  assert.equal(ids(namedIntegrations({ commonName: 'scada.north.example', dnsNames: ['other.example'] }, all)), []);
});

test('an integration with its own port is named only on that port (or when no port is given)', () => {
  const peer = { dnsNames: ['scada.own.example'], fingerprint256: '' };
  assert.equal(ids(namedIntegrations(peer, all, 2404)), []);
  assert.equal(ids(namedIntegrations(peer, all, 2405)), ['north-own-port']);
  assert.equal(ids(namedIntegrations(peer, all)), ['north-own-port']);
});

test('two integrations claiming one identity are both named, and the mapping refuses it as ambiguous', () => {
  const twin = { ...north, id: 'south-104' };
  const peer = { dnsNames: ['scada.north.example'], fingerprint256: '', issuedBy: () => true };
  assert.equal(ids(namedIntegrations(peer, [north, twin])), ['north-104', 'south-104']);
  // Both proven (the service CA signed it, neither has a CA of its own): refused rather than guessed.
  assert.equal(matchMaster(peer, 'TLSv1.2', [north, twin], undefined, [{} as X509Certificate]), { refused: 'ambiguousIdentity' });
});

test('a second integration claiming an identity with its own CA or pin does not cut off the master the first proves; two that both prove it are ambiguous', () => {
  const serviceCa = { name: 'service' } as unknown as X509Certificate;
  const otherCa = { name: 'other' } as unknown as X509Certificate;
  const peer = { dnsNames: ['scada.north.example'], fingerprint256: 'AA:BB', issuedBy: (ca: X509Certificate) => ca === serviceCa };
  const claimant = { ...north, id: 'east-104', issuerCas: [otherCa] };
  const pinnedClaimant: MasterCertificate = { ...north, id: 'east-pinned', certificateMode: 'pinned', pinnedFingerprint256: 'CC:DD' };
  assert.equal(matchMaster(peer, 'TLSv1.2', [north, claimant, pinnedClaimant], undefined, [serviceCa]), { integration: north });
  assert.equal(matchMaster(peer, 'TLSv1.2', [claimant, north], undefined, [serviceCa]), { integration: north }, 'whatever the order');
  assert.equal(matchMaster(peer, 'TLSv1.2', [north, { ...north, id: 'twin' }], undefined, [serviceCa]), { refused: 'ambiguousIdentity' }, 'both proven: ambiguous');
  assert.equal(matchMaster(peer, 'TLSv1.2', [north, { ...pinnedClaimant, pinnedFingerprint256: 'aa:bb' }], undefined, [serviceCa]), { refused: 'ambiguousIdentity' }, 'a pin of the same certificate proves it too');
  assert.equal(matchMaster({ ...peer, issuedBy: () => false }, 'TLSv1.2', [claimant, north], undefined, [serviceCa]), { refused: 'wrongIssuer' }, 'none proven: refused by proof');
});

test("two organisations proving one certificate (another tenant's pin of it, or the victim's public CA as its caFile): the older claim keeps it; a tie or an unknown age stays ambiguous", () => {
  const serviceCa = { name: 'service' } as unknown as X509Certificate;
  const peer = { dnsNames: ['scada.north.example'], fingerprint256: 'AA:BB', issuedBy: (ca: X509Certificate) => ca === serviceCa };
  const victim: MasterCertificate = { ...north, organizationId: 'north', claimedAt: 1000 };
  const pin: MasterCertificate = { ...north, id: 'east-pin', organizationId: 'east', claimedAt: 2000, certificateMode: 'pinned', pinnedFingerprint256: 'aa:bb' };
  const ca: MasterCertificate = { ...north, id: 'east-ca', organizationId: 'east', claimedAt: 2000, issuerCas: [serviceCa] };
  assert.equal(matchMaster(peer, 'TLSv1.2', [pin, victim], undefined, [serviceCa]), { integration: victim }, 'a newer pin does not shut the victim out');
  assert.equal(matchMaster(peer, 'TLSv1.2', [victim, ca], undefined, [serviceCa]), { integration: victim }, 'nor a newer caFile holding the victim\'s CA');
  assert.equal(matchMaster(peer, 'TLSv1.2', [{ ...victim, claimedAt: 3000 }, pin], undefined, [serviceCa]), { integration: pin }, 'the older claim wins, whoever it is');
  assert.equal(matchMaster(peer, 'TLSv1.2', [victim, { ...pin, claimedAt: 1000 }], undefined, [serviceCa]), { refused: 'ambiguousIdentity' }, 'a tie');
  assert.equal(matchMaster(peer, 'TLSv1.2', [victim, { ...pin, claimedAt: undefined }], undefined, [serviceCa]), { refused: 'ambiguousIdentity' }, 'an unknown age');
  assert.equal(matchMaster(peer, 'TLSv1.2', [victim, { ...victim, id: 'north-twin', claimedAt: 5000 }], undefined, [serviceCa]), { refused: 'ambiguousIdentity' }, 'one organisation\'s two proofs stay ambiguous');
});

test("the age rule counts only among claims of the same name: another organisation proving the certificate through its second SAN is ambiguous, whatever its age", () => {
  const serviceCa = { name: 'service' } as unknown as X509Certificate;
  const peer = { dnsNames: ['scada1.victim.example', 'scada1'], fingerprint256: 'AA:BB', issuedBy: (ca: X509Certificate) => ca === serviceCa };
  const victim: MasterCertificate = { ...base, id: 'v', organizationId: 'victim', masterIdentity: 'scada1.victim.example', claimedAt: Date.UTC(2025, 0, 1) };
  const hostile: MasterCertificate = { ...base, id: 'h', organizationId: 'hostile', masterIdentity: 'scada1', claimedAt: Date.UTC(2024, 0, 1), certificateMode: 'pinned', pinnedFingerprint256: 'aa:bb' };
  assert.equal(matchMaster(peer, 'TLSv1.2', [victim, hostile], undefined, [serviceCa]), { refused: 'ambiguousIdentity' }, 'the older claim on another name takes nothing');
  assert.equal(matchMaster(peer, 'TLSv1.2', [victim, { ...hostile, issuerCas: [serviceCa], certificateMode: 'ca' }], undefined, [serviceCa]), { refused: 'ambiguousIdentity' }, 'nor through the victim\'s CA');
  // The same name in another case is the same claim (DNS names are case-insensitive): the age rule applies.
  assert.equal(matchMaster(peer, 'TLSv1.2', [victim, { ...hostile, masterIdentity: 'SCADA1.Victim.Example' }], undefined, [serviceCa]), { integration: { ...hostile, masterIdentity: 'SCADA1.Victim.Example' } });
});

test('issuer by signature: the forged copy of a CA (same subject and key id) proves nothing; the real CAs prove what they signed', () => {
  const certs = devCerts('master-certificate-');
  try {
    const [leaf, forged, victimCa] = certificatesIn(readFileSync(forgeChain(certs).chain));
    const cert = (name: string) => new X509Certificate(readFileSync(certs.pem(name)));
    assert.ok(leaf!.checkIssued(forged!), 'names and key ids link the leaf to the forged copy');
    assert.ok(forged!.checkIssued(victimCa!), 'and the forged copy to the victim CA');
    assert.not.ok(provenIssuer(victimCa!, forged!), 'but the victim CA never signed the forged copy');
    assert.not.ok(provenIssuer(victimCa!, leaf!));
    assert.ok(provenIssuer(cert('rogue-ca'), leaf!), 'the hostile CA signed the leaf');
    assert.ok(provenIssuer(cert('ca'), cert('scada.north.example')));
    // The mapping: north trusts the service CA only, so the hostile leaf is refused whatever came with it.
    const northCa: MasterCertificate = { ...north, issuerCas: [cert('ca')] };
    assert.equal(matchMaster(peerIdentity(leaf!), 'TLSv1.3', [northCa]), { refused: 'wrongIssuer' });
    assert.equal(matchMaster(peerIdentity(leaf!), 'TLSv1.3', [north], undefined, [cert('ca')]), { refused: 'wrongIssuer' });
    assert.ok('integration' in matchMaster(peerIdentity(cert('scada.north.example')), 'TLSv1.3', [north], undefined, [cert('ca')]));
  } finally {
    certs.remove();
  }
});

test('a pinned certificate naming another organisation\'s master identity is named as such; its own names, CA mode and other pins\' names are not (docs/decisions.md#pins-checked-at-load)', () => {
  const certs = devCerts('pins-at-load-');
  try {
    const northLeaf = new X509Certificate(readFileSync(certs.pem('scada.north.example')));
    const claims = [
      { organizationId: 'north', masterIdentity: 'SCADA.North.Example' },
      { organizationId: 'east', masterIdentity: 'scada.east.example' },
    ];
    const pinned = (organizationId: string) => ({ organizationId, certificateMode: 'pinned' as const, pinnedCertificate: northLeaf });
    assert.equal(namesClaimedByOthers(pinned('east'), claims), ['scada.north.example'], 'east pinning north\'s certificate (names compare case-insensitively)');
    assert.equal(namesClaimedByOthers(pinned('north'), claims), [], 'north pinning its own');
    assert.equal(namesClaimedByOthers({ organizationId: 'east', certificateMode: 'ca' }, claims), [], 'CA mode: the issuer proof decides');
    assert.equal(namesClaimedByOthers(pinned('east'), [{ organizationId: 'east', masterIdentity: 'scada.north.example' }]), [], 'no other organisation claims it');
  } finally {
    certs.remove();
  }
});

test.run();
