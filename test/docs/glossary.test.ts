// docs/glossary.md defines the domain's terms in tables whose first cell names them. The terms the other pages
// rely on without explaining are required here (issue 42 point 6 named the first six), so removing or renaming
// one fails; its links are checked by references.test.ts.
import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

const page = readFileSync(new URL('../../docs/glossary.md', import.meta.url), 'utf8');

/** The terms the rows define, in order: each row's first cell, split at commas (the header and rule rows left out). */
const terms = [...page.matchAll(/^\| ([^|]+) \|/gm)].flatMap((m) => m[1]!.split(',').map((t) => t.trim())).filter((t) => t !== 'term' && !/^-+$/.test(t));
const defined = new Set(terms);

const REQUIRED = [
  'AOF', 'ActualOngoingFault', 'DM1', 'slot', 'bank', 'COT', 'CP56Time2a',
  'IMEI', 'check-in', 'event types', 'ongoing fault code', 'code class', 'incident', 'faulted section',
  'dead letter', 'poison record', 'partition', 'lag', 'outbox', 'embedded default',
  'SCADA master', 'outstation', 'master identity', 'IOA', 'common address', 'ASDU', 'IIN', 'GI', 'integrity poll', 'unsolicited response',
  'OMS', 'MultiSpeak', 'organisation', 'reach', 'mask', 'integration key',
];

test('the glossary defines every required term', () => {
  assert.ok(defined.size > 40, `terms read: ${defined.size}`);
  assert.equal(REQUIRED.filter((t) => !defined.has(t)), []);
});

test('no term is defined twice', () => {
  assert.equal(terms.filter((t, i) => terms.indexOf(t) !== i), []);
});

test.run();
