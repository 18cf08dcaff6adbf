// The ledger's pure part (integrations/diagnostics-ledger.ts Tally): counts per integration and reason with the
// first and last time, emptied when taken, and a batch the database refused merged back without losing a count.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Tally, UNATTRIBUTED } from '../../integrations/diagnostics-ledger.js';

const t = (s: number) => new Date(Date.UTC(2026, 10, 26, 1, 0, s));
const byKey = (rows: ReturnType<Tally['take']>) => Object.fromEntries(rows.map((r) => [`${r.integrationId}/${r.reason}`, [r.count, r.first.getUTCSeconds(), r.last.getUTCSeconds()]]));

test('counts per integration and reason, first and last time whatever order the times come in', () => {
  const tally = new Tally();
  tally.count('north-104', 'sequenceError', t(5));
  tally.count('north-104', 'sequenceError', t(9));
  tally.count('north-104', 'sequenceError', t(2));
  tally.count('north-104', 'unknownType', t(3));
  tally.count('south-104', 'sequenceError', t(4));
  tally.count(UNATTRIBUTED, 'tlsHandshake', t(1));
  assert.is(tally.size, 4);
  assert.equal(byKey(tally.take()), {
    'north-104/sequenceError': [3, 2, 9],
    'north-104/unknownType': [1, 3, 3],
    'south-104/sequenceError': [1, 4, 4],
    '/tlsHandshake': [1, 1, 1],
  });
  assert.is(tally.size, 0, 'taking empties the tally');
  assert.equal(tally.take(), []);
});

test('a batch put back (the database was away) merges with what was counted since: no count lost, times widened', () => {
  const tally = new Tally();
  tally.count('north-104', 'missingStartdt', t(10));
  tally.count('north-104', 'missingStartdt', t(11));
  const batch = tally.take();
  tally.count('north-104', 'missingStartdt', t(20));
  tally.count('north-104', 'unknownIoa', t(21));
  tally.putBack(batch);
  assert.equal(byKey(tally.take()), { 'north-104/missingStartdt': [3, 10, 20], 'north-104/unknownIoa': [1, 21, 21] });
  // Put back into an empty tally: the rows as they were, copies (the batch itself is not changed by later counts).
  tally.putBack(batch);
  tally.count('north-104', 'missingStartdt', t(30));
  assert.equal(byKey(tally.take()), { 'north-104/missingStartdt': [3, 10, 30] });
  assert.equal(byKey(batch), { 'north-104/missingStartdt': [2, 10, 11] });
});

test.run();
