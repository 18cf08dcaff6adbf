// Demo data of the embedded default: the fixture organisations, devices and users
// (schemas/config/demo-data.json, a copy of shared/fixtures/import.json), imported idempotently at every
// start, so `npm start` has devices to show and users to log in with.
import { log } from '../config/log.js';
import { importReferenceData, readImportFile } from '../reference-data/index.js';
import { loadKeyring } from '../secrets/keyring.js';
import type { Runtime } from './runtime.js';

export const DEMO_DATA_FILE = new URL('../schemas/config/demo-data.json', import.meta.url).pathname;

export async function loadDemoData(runtime: Runtime): Promise<string> {
  const keyring = loadKeyring({ dataDir: runtime.settings.dataDir, embedded: runtime.embedded, onLog: (line) => log.info(line) });
  const counts = await importReferenceData(runtime.pool, await readImportFile(DEMO_DATA_FILE), { keyring });
  return Object.entries(counts).map(([kind, c]) => `${c.inserted + c.updated + c.unchanged} ${kind}`).join(', ');
}
