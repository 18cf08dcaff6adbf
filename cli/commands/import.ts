// `faultline import <file.json>`: docs/decisions.md#import-format; idempotent, all or nothing.
import { log } from '../../config/log.js';
import { importReferenceData, readImportFile } from '../../reference-data/index.js';
import { loadKeyring, type Keyring } from '../../secrets/keyring.js';
import { SecretsError } from '../../secrets/errors.js';
import { openRuntime } from '../runtime.js';

export async function run(args: string[]): Promise<void> {
  const [file] = args;
  if (!file) throw new Error('import: give the file, e.g. faultline import devices.json');
  const data = await readImportFile(file);
  const runtime = await openRuntime();
  try {
    const keyring = optionalKeyring(() => loadKeyring({ configured: runtime.settings.secretKeys, dataDir: runtime.settings.dataDir, embedded: runtime.embedded, onLog: (line) => log.info(line) }));
    const counts = await importReferenceData(runtime.pool, data, {
      ...(keyring ? { keyring } : {}),
      webhookAllow: runtime.settings.alarms.webhookAllow,
      onProgress: ({ kind, done, total }) => process.stdout.write(`import: ${kind} ${done}/${total}\n`),
      onWarning: (w) => process.stderr.write(`import: warning: ${w.path}: ${w.message}\n`),
    });
    for (const [kind, c] of Object.entries(counts)) process.stdout.write(`${kind}: ${c.inserted} inserted, ${c.updated} updated, ${c.unchanged} unchanged\n`);
  } finally {
    await runtime.close();
  }
}

// Without configured keys a file with no credentials still imports; the importer names the rows that need a key.
function optionalKeyring(load: () => Keyring): Keyring | undefined {
  try {
    return load();
  } catch (err) {
    if (err instanceof SecretsError && err.code === 'NO_SECRET_KEYS') return undefined;
    throw err;
  }
}
