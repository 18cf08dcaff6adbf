// `npm run generate:import-schema`: writes schemas/import.schema.json from reference-data/import-schema.ts.
// test/reference-data/import-schema.test.ts fails when the committed file differs.
import { writeFileSync } from 'node:fs';
import { importSchema } from './import-schema.js';

export const IMPORT_SCHEMA_FILE = new URL('../schemas/import.schema.json', import.meta.url);
export const importSchemaText = () => `${JSON.stringify(importSchema(), null, 2)}\n`;

if (process.argv[1] === new URL(import.meta.url).pathname) {
  writeFileSync(IMPORT_SCHEMA_FILE, importSchemaText());
  process.stdout.write(`wrote ${IMPORT_SCHEMA_FILE.pathname}\n`);
}
