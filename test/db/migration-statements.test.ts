// A migration run outside a transaction (db/migrate.ts, `-- faultline: no transaction`; migration 0032 builds
// its index CONCURRENTLY) is sent one statement at a time: its comments dropped, split where a `;` ends a line.
// Pure: no server (the migration itself runs in every suite's database, and in read-plans.test.ts).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { statementsOf } from '../../db/migrate.js';

const test = suite('migration statements');

test('comments are dropped and each statement is sent alone', () => {
  assert.equal(statementsOf('-- faultline: no transaction\n-- why\ndrop index concurrently if exists a;\ncreate index concurrently a\n  on t (x);  \n-- end\n'), [
    'drop index concurrently if exists a',
    'create index concurrently a\n  on t (x)',
  ]);
});

test('migration 0032 is two statements: the drop of a cut build, then the build', () => {
  const sql = readFileSync(new URL('../../schemas/migrations/0032_incidents_by_first_trip.sql', import.meta.url), 'utf8');
  assert.ok(sql.startsWith('-- faultline: no transaction\n'));
  assert.equal(statementsOf(sql), [
    'drop index concurrently if exists incidents_org_first_trip',
    'create index concurrently incidents_org_first_trip on incidents ("OrganizationID", first_trip_at, id)',
  ]);
});

test.run();
