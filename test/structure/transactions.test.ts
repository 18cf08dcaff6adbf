// Every transaction begins, commits and rolls back in db/transaction.ts alone (withTransaction and its options;
// docs/decisions.md#plumbing-written-once): a BEGIN, COMMIT or ROLLBACK written anywhere else in production code
// fails here, shown first on a fixture.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { productionSources as productionFiles, root } from './production-sources.js';

const test = suite('transactions');
const OWNER = 'db/transaction.ts';

/** The transaction statements a source text sends: a string that is one such statement, or one ending a script. */
export function transactionStatements(text: string): string[] {
  const alone = /(['"`])\s*((?:begin|start\s+transaction|commit|rollback)(?:\s+(?:transaction|work|isolation\s+level[a-z ]*|read\s+(?:only|write)))*)\s*;?\s*\1/gi;
  const inScript = /;\s*\n?\s*(begin|start\s+transaction|commit|rollback)\s*;?\s*['"`]/gi;
  return [...text.matchAll(alone)].map((m) => m[2]!).concat([...text.matchAll(inScript)].map((m) => m[1]!));
}

test('a fixture that sends its own BEGIN/COMMIT/ROLLBACK is found', () => {
  const fixture = `const client = await pool.connect();
    await client.query('begin');
    await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
    await client.query(\`\${merges};\ncommit\`);
    await client.query('rollback').catch(() => {});
    await client.query(\`COMMIT\`);`;
  assert.equal(transactionStatements(fixture).map((s) => s.toLowerCase()), ['begin', 'begin isolation level repeatable read read only', 'rollback', 'commit', 'commit']);
  assert.equal(transactionStatements("await client.query('select 1'); const t = 'beginning'; log('commit failed');"), []);
});

test(`production code sends BEGIN, COMMIT and ROLLBACK only through ${OWNER}`, () => {
  const offenders = productionFiles().filter((f) => f !== OWNER).flatMap((f) => transactionStatements(readFileSync(join(root, f), 'utf8')).map((s) => `${f}: ${s}`));
  assert.equal(offenders, [], `use withTransaction (${OWNER}) instead`);
});

test.run();
