// Recorded envelopes (golden files): what each operation in each version sends for one fault notification,
// kept under test/multispeak/recorded/<version>/<Operation>.xml so any change to the wire shows in review.
// UPDATE_RECORDED=1 rewrites them (then check them with envelopes.test.ts, which validates the schema).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { buildRequest } from '../../multispeak/build.js';
import { OPERATIONS } from '../../multispeak/operations.js';
import { VERSIONS } from '../../multispeak/versions.js';
import { fault } from './notifications.js';

const test = suite('recorded envelopes');
const dir = new URL('./recorded/', import.meta.url).pathname;
const now = new Date('2026-11-20T08:30:05.000Z');

for (const version of VERSIONS) {
  for (const operation of OPERATIONS) {
    test(`${version} ${operation}`, () => {
      const xml = buildRequest(version, operation, fault(), { userId: 'fi-north', password: 'example-password' }, now, 'North Utility').xml;
      const file = `${dir}${version}/${operation}.xml`;
      if (process.env.UPDATE_RECORDED === '1') {
        mkdirSync(`${dir}${version}`, { recursive: true });
        writeFileSync(file, `${xml}\n`);
      }
      assert.fixture(xml, readFileSync(file, 'utf8').trimEnd());
    });
  }
}

test.run();
