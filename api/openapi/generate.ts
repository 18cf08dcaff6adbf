// `npm run generate:openapi`: writes docs/openapi.json (the document GET /openapi.json serves with the
// shipped code strings) and docs/api-reference.md rendered from it. test/api/openapi-committed.test.ts
// fails when either differs from what the app serves; run this after changing a route's description.
import { writeFileSync } from 'node:fs';
import { loadCodeStrings } from '../device-records/code-strings-file.js';
import { openApiDocument } from './document.js';
import { renderApiReference } from './reference-page.js';

export const OPENAPI_FILE = new URL('../../docs/openapi.json', import.meta.url);
export const API_REFERENCE_FILE = new URL('../../docs/api-reference.md', import.meta.url);
export const openApiText = (doc: object) => `${JSON.stringify(doc, null, 2)}\n`;

if (process.argv[1] === new URL(import.meta.url).pathname) {
  const doc = openApiDocument({ codeStrings: loadCodeStrings() });
  writeFileSync(OPENAPI_FILE, openApiText(doc));
  writeFileSync(API_REFERENCE_FILE, renderApiReference(doc));
  process.stdout.write(`wrote ${OPENAPI_FILE.pathname} and ${API_REFERENCE_FILE.pathname}\n`);
}
