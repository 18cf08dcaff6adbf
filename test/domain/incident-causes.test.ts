// The rules of a cause list and of a recorded cause (domain/incident-causes.ts), table by table.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { causeIdProblem, causeListProblems, DEFAULT_CAUSE_IDS, readCauseRecord } from '../../domain/incident-causes.js';

test('the default list is eReliability Tracker-like, and every id of it is a valid cause', () => {
  for (const id of ['vegetation', 'equipment', 'animal', 'weather', 'lightning', 'public-vehicle', 'unknown']) assert.ok(DEFAULT_CAUSE_IDS.includes(id), id);
  assert.equal(causeListProblems([...DEFAULT_CAUSE_IDS]), []);
});

test('a cause id: lower-case words with hyphens, never a word that names a fault class', () => {
  for (const ok of ['trees', 'bird-contact', 'a1']) assert.is(causeIdProblem(ok), null, ok);
  for (const bad of ['', 'Trees', '-x', 'a b', 'x'.repeat(41), 7, null]) assert.match(causeIdProblem(bad) ?? '', 'must be 1 to 40', String(bad));
  for (const cls of ['permanent', 'momentary-trip', 'temporary', 'overcurrent', 'sotf']) assert.match(causeIdProblem(cls) ?? '', 'names a fault class', cls);
});

test('a list: 1 to 100 ids, none repeated, each problem at its position', () => {
  assert.equal(causeListProblems('trees'), ['causes must be an array of cause ids']);
  assert.equal(causeListProblems([]), ['causes must hold 1 to 100 ids']);
  assert.equal(causeListProblems(Array.from({ length: 101 }, (_, n) => `c${n}`)), ['causes must hold 1 to 100 ids']);
  assert.equal(causeListProblems(['trees', 'Birds', 'trees']), ['causes[1] must be 1 to 40 lower-case letters, digits or hyphens, starting with a letter or digit', 'causes[2] repeats "trees"']);
});

test('a record: a cause on the list, a boolean flag, a short note; every problem named by its field', () => {
  const list = ['trees', 'unknown'];
  assert.equal(readCauseRecord({ cause: 'trees' }, list), { record: { cause: 'trees', majorEvent: false, note: null } });
  assert.equal(readCauseRecord({ cause: 'unknown', majorEvent: true, note: '  storm  ' }, list), { record: { cause: 'unknown', majorEvent: true, note: 'storm' } });
  assert.equal(readCauseRecord({ cause: 'trees', note: '   ' }, list), { record: { cause: 'trees', majorEvent: false, note: null } });
  const fields = (body: Record<string, unknown>) => ('problems' in readCauseRecord(body, list) ? (readCauseRecord(body, list) as { problems: { field: string }[] }).problems.map((p) => p.field) : []);
  assert.equal(fields({}), ['cause']);
  assert.equal(fields({ cause: 'vegetation' }), ['cause']);
  assert.equal(fields({ cause: 'trees', majorEvent: 'yes', note: 'x'.repeat(501), by: 'me' }), ['by', 'majorEvent', 'note']);
  assert.equal(fields({ cause: 'trees', note: 'bell\u0007' }), ['note']);
  assert.equal(fields({ cause: 'trees', note: 'two\nlines\ttab' }), []);
  const problem = readCauseRecord({ cause: 'gremlins' }, list) as { problems: { message: string }[] };
  assert.is(problem.problems[0]!.message, '"gremlins" is not on the organisation\'s list: one of trees, unknown');
});

test.run();
