// resolveCertificates (integrations/master-settings.ts): an integration whose certificate file is missing, not PEM
// or a broken PEM is answered as unreadable (its file named, never its content) instead of throwing, so one bad
// file leaves that integration alone unadmitted and the others load (docs/decisions.md#scada-master-identity-and-listener).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { resolveCertificates, type MasterSettings } from '../../integrations/master-settings.js';
import { devCerts } from '../helpers/dev-certs.js';

const certs = devCerts('master-settings-');
const base: MasterSettings = { id: 'north', organizationId: 'north', masterIdentity: 'scada.north.example', tlsMinVersion: 'TLSv1.2', certificateMode: 'ca', analogOnly: false };
const file = (name: string, content: string) => { const p = join(certs.dir, name); writeFileSync(p, content); return p; };
const SECRETISH = 'MIIBSECRETLOOKINGBYTES';
const bad = {
  missing: join(certs.dir, 'deleted.pem'),
  notPem: file('not-pem.pem', `just text ${SECRETISH}\n`),
  brokenPem: file('broken.pem', `-----BEGIN CERTIFICATE-----\n${SECRETISH}\n-----END CERTIFICATE-----\n`),
  empty: file('empty.pem', ''),
};

test('a readable caFile and pinned file: the integration with its CAs and pin', () => {
  const ca = resolveCertificates({ ...base, caFile: certs.pem('rogue-ca') });
  assert.ok('integration' in ca && ca.integration.issuerCas?.length === 1);
  const pinned = resolveCertificates({ ...base, certificateMode: 'pinned', pinnedCertificateFile: certs.pem('scada.north.example') });
  assert.ok('integration' in pinned && pinned.integration.pinnedFingerprint256 === pinned.integration.pinnedCertificate?.fingerprint256);
});

test('a missing, non-PEM, broken or empty caFile or pinned file: unreadable, naming the file and not its content, no throw', () => {
  for (const [label, path] of Object.entries(bad)) {
    for (const settings of [{ ...base, caFile: path }, { ...base, certificateMode: 'pinned' as const, pinnedCertificateFile: path }]) {
      const r = resolveCertificates(settings);
      assert.ok('unreadable' in r, `${label} (${settings.certificateMode}): not admitted`);
      if (!('unreadable' in r)) continue;
      assert.is(r.unreadable.file, path, label);
      assert.ok(r.unreadable.problem.length > 0, label);
      assert.not.ok(r.unreadable.problem.includes(SECRETISH), `${label}: the problem quotes no content`);
    }
  }
  assert.is((resolveCertificates({ ...base, caFile: bad.missing }) as { unreadable: { problem: string } }).unreadable.problem, 'ENOENT');
});

test('without files (the service CA) nothing is read: admitted as it is', () => {
  assert.equal(resolveCertificates({ ...base }), { integration: { ...base } });
});

test.after(() => certs.remove());
test.run();
