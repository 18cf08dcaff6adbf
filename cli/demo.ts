// Demo data of the embedded default: the fixture organisations, devices and users
// (schemas/config/demo-data.json, a copy of shared/fixtures/import.json), imported idempotently at every
// start, so `npm start` has devices to show and users to log in with; its MultiSpeak integrations deliver to
// the demo OMS (demo-oms.ts).
import { log } from '../config/log.js';
import { importReferenceData, readImportFile } from '../reference-data/index.js';
import { loadKeyring } from '../secrets/keyring.js';
import { servableEndpoints, type DemoEndpoint } from './demo-oms.js';
import type { Runtime } from './runtime.js';

export const DEMO_DATA_FILE = new URL('../schemas/config/demo-data.json', import.meta.url).pathname;

export async function loadDemoData(runtime: Runtime): Promise<{ summary: string; omsEndpoints: DemoEndpoint[] }> {
  const keyring = loadKeyring({ dataDir: runtime.settings.dataDir, embedded: runtime.embedded, onLog: (line) => log.info(line) });
  const data = await readImportFile(DEMO_DATA_FILE);
  const counts = await importReferenceData(runtime.pool, data, { keyring });
  return {
    summary: Object.entries(counts).map(([kind, c]) => `${c.inserted + c.updated + c.unchanged} ${kind}`).join(', '),
    omsEndpoints: servableEndpoints(data),
  };
}
