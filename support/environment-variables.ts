// The environment variables the service reads. Only config/ reads the environment
// (test/structure/environment.test.ts holds every other production file to that), so config/ is the one place
// scanned: `env.NAME`, `env['NAME']`, and the settings helpers' `(env, 'NAME'` calls. The configuration table
// (README) and the example env files (docs/examples/deploy) are both checked against this one list.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const READS = [/\benv\.([A-Z][A-Z0-9_]+)/g, /\benv\[['"]([A-Z][A-Z0-9_]+)['"]\]/g, /\(\s*env\s*,\s*['"]([A-Z][A-Z0-9_]+)['"]/g];

export function variablesTheServiceReads(): Set<string> {
  const files = readdirSync(join(root, 'config'), { recursive: true, encoding: 'utf8' }).filter((f) => /\.(ts|js)$/.test(f));
  const names = new Set<string>();
  for (const f of files) {
    const text = readFileSync(join(root, 'config', f), 'utf8');
    for (const re of READS) for (const m of text.matchAll(re)) names.add(m[1]!);
  }
  return names;
}
