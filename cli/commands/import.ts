// `faultline import [--dry-run] <file.json>`: docs/decisions.md#import-format; idempotent, all or nothing.
// --dry-run runs the same import and rolls it back (docs/decisions.md#import-dry-run).
import { parseArgs } from 'node:util';
import { COMMANDS } from '../command-table.js';
import { log } from '../../config/log.js';
import { importReferenceData, KINDS, planImport, readImportFile, type ImportOptions, type ImportPlan } from '../../reference-data/index.js';
import { loadKeyring, type Keyring } from '../../secrets/keyring.js';
import { SecretsError } from '../../secrets/errors.js';
import { openRuntime } from '../runtime.js';

const say = (line: string) => process.stdout.write(`${line}\n`);

export async function run(args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: COMMANDS.import.options });
  const [file] = positionals;
  if (!file) throw new Error('import: give the file, e.g. faultline import devices.json');
  const data = await readImportFile(file);
  const runtime = await openRuntime();
  try {
    const keyring = optionalKeyring(() => loadKeyring({
      configured: runtime.settings.secretKeys, dataDir: runtime.settings.dataDir, embedded: runtime.embedded,
      writeKeyFile: !values['dry-run'], onLog: (line) => log.info(line),
    }));
    const options: ImportOptions = {
      ...(keyring ? { keyring } : {}),
      webhookAllow: runtime.settings.alarms.webhookAllow,
      dedicatedPorts: runtime.settings.scadaDedicatedPorts,
      onWarning: (w) => process.stderr.write(`import: warning: ${w.path}: ${w.message}\n`),
    };
    if (values['dry-run']) {
      printPlan(await planImport(runtime.pool, data, options));
      return;
    }
    const counts = await importReferenceData(runtime.pool, data, {
      ...options, onProgress: ({ kind, done, total }) => say(`import: ${kind} ${done}/${total}`),
    });
    for (const [kind, c] of Object.entries(counts)) say(`${kind}: ${c.inserted} inserted, ${c.updated} updated, ${c.unchanged} unchanged`);
  } finally {
    await runtime.close();
  }
}

/** One line per kind; soft deletes are the updates that set `deleted`, so they are taken out of the updates. */
function printPlan({ counts, deleting }: ImportPlan): void {
  say('dry run: the file is valid; importing it would change:');
  for (const kind of KINDS) {
    const c = counts[kind];
    const deletes = kind === 'devices' || kind === 'users' ? deleting[kind] : 0;
    say(`${kind}: ${c.inserted} to create, ${c.updated - deletes} to update, ${deletes} to delete, ${c.unchanged} unchanged`);
  }
  say('dry run: nothing was written');
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
