// docs/ports-and-certificates.md's listener table against config/settings.ts, the one reader of every setting:
// each port setting the service reads has a row, and the default port a row states is the one loadSettings
// gives when the setting is unset.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { loadSettings } from '../../config/settings.js';

const page = readFileSync(new URL('../../docs/ports-and-certificates.md', import.meta.url), 'utf8');
const settingsSource = readFileSync(new URL('../../config/settings.ts', import.meta.url), 'utf8');

/** The listener table's rows that a port setting moves, as {setting: default port cell}. */
function listenerRows(): Map<string, string> {
  const table = page.split('\n## Listeners\n')[1]!.split('\n## ')[0]!;
  const rows = new Map<string, string>();
  for (const line of table.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| Listener') && !l.startsWith('|---'))) {
    const cells = line.split(' | ').map((c) => c.replace(/^\| /, '').trim());
    const setting = /^`([A-Z0-9_]*PORT)`$/.exec(cells[3]!)?.[1];
    if (setting) rows.set(setting, cells[2]!);
  }
  return rows;
}

/** Every environment variable config/settings.ts reads whose name ends in PORT. */
const portSettings = () => [...new Set([...settingsSource.matchAll(/env\.([A-Z0-9_]*PORT)\b|'([A-Z0-9_]*PORT)'/g)].map((m) => m[1] ?? m[2]!))].sort();

test('every port setting the service reads has a row in the listener table', () => {
  const rows = listenerRows();
  const settings = portSettings();
  assert.ok(settings.includes('PORT') && settings.includes('DNP3_PORT') && settings.includes('IEC104_PORT'), `found ${settings.join(', ')}`);
  assert.equal(settings.filter((s) => !rows.has(s)), []);
});

test('each row\'s default port is the one the code uses', () => {
  const s = loadSettings({});
  const defaults: Record<string, string> = {
    PORT: String(s.httpPort), DNP3_PORT: String(s.dnp3.port), IEC104_PORT: String(s.iec104Port), EMBEDDED_PG_PORT: String(s.embeddedPgPort),
    METRICS_PORT: s.metricsPort === null ? 'on `PORT`' : String(s.metricsPort),
  };
  const rows = listenerRows();
  const wrong = [...rows].filter(([setting, cell]) => defaults[setting] !== cell).map(([setting, cell]) => `${setting}: page ${cell}, code ${defaults[setting]}`);
  assert.equal(wrong, []);
  assert.is(rows.size, Object.keys(defaults).length);
});

test.run();
