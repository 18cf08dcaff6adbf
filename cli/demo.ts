// Demo data of the embedded default: the fixture organisations, devices and users
// (schemas/config/demo-data.json), imported once into an empty database, so `npm start` has devices to show
// and users to log in with; its MultiSpeak integrations deliver to the demo OMS (demo-oms.ts). A database that
// already holds an organisation is left as it is: a restart must not undo what the user changed with
// `faultline import` (an edited integration, a removed device).
import { readFileSync } from 'node:fs';
import type pg from 'pg';
import { verifyPassword } from '../secrets/password.js';
import { importReferenceData, readImportFile } from '../reference-data/index.js';
import { servableEndpoints, type DemoEndpoint } from './demo-oms.js';
import { seedFleetScenarios } from './demo-fleet.js';
import type { Runtime } from './runtime.js';

export const DEMO_DATA_FILE = new URL('../schemas/config/demo-data.json', import.meta.url).pathname;

export async function loadDemoData(runtime: Runtime): Promise<{ summary: string; omsEndpoints: DemoEndpoint[] }> {
  const data = await readImportFile(DEMO_DATA_FILE);
  const omsEndpoints = servableEndpoints(data);
  const { rows } = await runtime.pool.query<{ seeded: boolean }>('select exists (select 1 from organizations) as seeded');
  if (rows[0]!.seeded) return { summary: 'kept: the database already has organisations', omsEndpoints };
  const { keyring, problem } = runtime.keyring();
  if (problem) throw problem;
  const counts = await importReferenceData(runtime.pool, data, { keyring: keyring! });
  const fleet = runtime.settings.embeddedExtras.demoFleet ? `; ${await seedFleetScenarios({ pool: runtime.pool, inboxDir: runtime.settings.inboxDir })}` : '';
  return {
    summary: `imported ${Object.entries(counts).map(([kind, c]) => `${c.inserted + c.updated + c.unchanged} ${kind}`).join(', ')}${fleet}`,
    omsEndpoints,
  };
}

/**
 * The demo users whose published demo password still logs in (docs/decisions.md#safe-to-start-on-a-network):
 * the start-up list warns until each is changed or the user removed. Checked on every database, so demo data
 * imported by hand into a deployment is caught too.
 */
export async function demoPasswordsInUse(pool: pg.Pool): Promise<string[]> {
  const { users = [] } = JSON.parse(readFileSync(DEMO_DATA_FILE, 'utf8')) as { users?: { email: string; password?: string }[] };
  const demo = new Map(users.filter((u) => typeof u.password === 'string').map((u) => [u.email.toLowerCase(), u.password!]));
  const { rows } = await pool.query<{ email: string; password_hash: string }>(
    'select email, password_hash from users where lower(email) = any($1) and deleted_at is null order by email', [[...demo.keys()]]);
  const working: string[] = [];
  for (const row of rows) if (await verifyPassword(demo.get(row.email.toLowerCase())!, row.password_hash)) working.push(row.email);
  return working;
}
