// `npm run generate:iec104`: rewrites the interoperability list in docs/iec104.md from the generator
// (docs-copy.ts). Without --write it prints the list.
import { readFileSync, writeFileSync } from 'node:fs';
import { defaultListMarkdown, withCopy } from './docs-copy.js';

const doc = new URL('../../docs/iec104.md', import.meta.url);
if (process.argv.includes('--write')) writeFileSync(doc, withCopy(readFileSync(doc, 'utf8')));
else process.stdout.write(defaultListMarkdown());
