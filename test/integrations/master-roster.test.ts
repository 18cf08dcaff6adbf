// rosterChanges (integrations/master-roster.ts): what a reload of the SCADA master integrations starts, stops and
// replaces (docs/decisions.md#scada-master-identity-and-listener). A changed pin or CA file is a change even when
// the settings row is the same: the files are read again on every reload.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { X509Certificate } from 'node:crypto';
import { rosterChanges } from '../../integrations/master-roster.js';
import type { MasterSettings } from '../../integrations/master-settings.js';

const base: MasterSettings = { id: 'north', organizationId: 'north', masterIdentity: 'scada.north.example', tlsMinVersion: 'TLSv1.2', certificateMode: 'ca', analogOnly: false };
const cert = (fingerprint256: string) => ({ fingerprint256 }) as X509Certificate;
const ids = (l: MasterSettings[]) => l.map((i) => i.id);

test('new, gone and changed integrations by id; an unchanged one is none of them', () => {
  const south = { ...base, id: 'south', organizationId: 'south', masterIdentity: 'scada.south.example' };
  const east = { ...base, id: 'east', organizationId: 'east', masterIdentity: 'scada.east.example' };
  const r = rosterChanges([base, south], [{ ...south, tlsMinVersion: 'TLSv1.3' }, east]);
  assert.equal([ids(r.added), ids(r.removed), ids(r.changed)], [['east'], ['north'], ['south']]);
  const same = rosterChanges([base], [{ ...base }]);
  assert.equal([same.added, same.removed, same.changed], [[], [], []]);
});

test('the same row with a pinned certificate or CA file whose content changed is a change', () => {
  const pinned = { ...base, certificateMode: 'pinned' as const, pinnedCertificateFile: '/pin.pem' };
  assert.equal(ids(rosterChanges([{ ...pinned, pinnedCertificate: cert('AA') }], [{ ...pinned, pinnedCertificate: cert('BB') }]).changed), ['north']);
  assert.equal(ids(rosterChanges([{ ...base, issuerCas: [cert('AA')] }], [{ ...base, issuerCas: [cert('AA'), cert('CC')] }]).changed), ['north']);
  assert.equal(ids(rosterChanges([{ ...base, issuerCas: [cert('AA')] }], [{ ...base, issuerCas: [cert('AA')] }]).changed), []);
});

test.run();
