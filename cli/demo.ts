// Demo data of the embedded default: the fixture organisations, devices and users
// (schemas/config/demo-data.json), imported once into an empty database, so `npm start` has devices to show
// and users to log in with; its MultiSpeak integrations deliver to the demo OMS (demo-oms.ts). A database that
// already holds an organisation is left as it is: a restart must not undo what the user changed with
// `faultline import` (an edited integration, a removed device).
import { log } from '../config/log.js';
import { importReferenceData, readImportFile } from '../reference-data/index.js';
import { loadKeyring } from '../secrets/keyring.js';
import { servableEndpoints, type DemoEndpoint } from './demo-oms.js';
import type { Runtime } from './runtime.js';

export const DEMO_DATA_FILE = new URL('../schemas/config/demo-data.json', import.meta.url).pathname;

export async function loadDemoData(runtime: Runtime): Promise<{ summary: string; omsEndpoints: DemoEndpoint[] }> {
  const data = await readImportFile(DEMO_DATA_FILE);
  const omsEndpoints = servableEndpoints(data);
  const { rows } = await runtime.pool.query<{ seeded: boolean }>('select exists (select 1 from organizations) as seeded');
  if (rows[0]!.seeded) return { summary: 'kept: the database already has organisations', omsEndpoints };
  const keyring = loadKeyring({ dataDir: runtime.settings.dataDir, embedded: runtime.embedded, onLog: (line) => log.info(line) });
  const counts = await importReferenceData(runtime.pool, data, { keyring });
  return {
    summary: `imported ${Object.entries(counts).map(([kind, c]) => `${c.inserted + c.updated + c.unchanged} ${kind}`).join(', ')}`,
    omsEndpoints,
  };
}
