// Three organisations' SCADA masters for the security suites that attack the running DNP3 outstation and IEC 104
// station (startDnp3Service, startIec104Service: integrations from Postgres, the service CA from DNP3_TLS_*):
// north and south trust the service CA; east, the hostile tenant, brings its own CA (rogue-ca, its caFile), so the
// listener trusts that CA too. The forged chain of test/helpers/forged-chain.ts is made alongside.
import type { IntegrationKind } from '../../integrations/store.js';
import { createTestDatabase, type TestDatabase } from '../../support/database.js';
import { importDemoData } from '../../support/reference-data.js';
import { devCerts, type DevCerts } from './dev-certs.js';
import { forgeChain } from './forged-chain.js';

export interface ScadaTenants {
  certs: DevCerts;
  db: TestDatabase;
  /** rogue.example (rogue-ca's leaf naming north's master identity) with the forged copy of rogue-ca and the real ca. */
  forged: { chain: string; key: string };
  /** The integration ids: `<org>-<kind>`. */
  id(org: 'north' | 'south' | 'east'): string;
  remove(): Promise<void>;
}

export async function scadaTenants(kind: Extract<IntegrationKind, 'dnp3' | 'iec104'>, prefix: string): Promise<ScadaTenants> {
  const certs = devCerts(`${prefix}-`);
  const forged = forgeChain(certs);
  const db = await createTestDatabase(prefix.replace(/\W/g, '_'));
  await importDemoData(db.pool);
  await db.pool.query(`insert into organizations ("OrganizationID", name) values ('east', 'East') on conflict do nothing`);
  const id = (org: string) => `${org}-${kind}`;
  // The demo import's own SCADA integrations give way to these three.
  await db.pool.query('delete from integrations where kind = $1', [kind]);
  const insert = `insert into integrations (id, "OrganizationID", kind, channel, settings) values ($1, $2, $3, 'A', $4)`;
  // TLS 1.2 allowed: the raw attack sockets below offer what Node offers, and IEC 104 masters often only 1.2.
  await db.pool.query(insert, [id('north'), 'north', kind, { masterIdentity: 'scada.north.example', tlsMinVersion: '1.2' }]);
  await db.pool.query(insert, [id('south'), 'south', kind, { masterIdentity: 'scada.south.example', tlsMinVersion: '1.2' }]);
  await db.pool.query(insert, [id('east'), 'east', kind, { masterIdentity: 'scada.east.example', tlsMinVersion: '1.2', caFile: certs.pem('rogue-ca') }]);
  return { certs, db, forged, id, remove: async () => { await db.drop(); certs.remove(); } };
}
