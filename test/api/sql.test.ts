import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { eventType, fault, num, text, type FieldTable } from '../../api/device-records/fields.js';
import { filterConditions, orderBy, rangedFirstPage, SqlParams } from '../../api/device-records/sql.js';
import type { Filter } from '../../api/device-records/list-params.js';
import { parseCodeStrings } from '../../domain/code-strings.js';
import { Temporal } from 'temporal-polyfill';

const table: FieldTable = { name: text('d."Real_Name"'), level: num('r."level"'), f: fault('r."ActualOngoingFault"'), s: { sql: 'r."State"', type: 'state' },
  t: { sql: 'r."FaultType"', type: 'fault-type' }, e: eventType('e."EventType"') };
const parsed = parseCodeStrings({ version: 1, State: { 0: 'Normal', 1: 'Fault' }, FaultType: { 0: 'No fault', 2: 'Permanent' } });
if (!parsed.ok) throw new Error(parsed.reason);
const ctx = { codeStrings: parsed.value };

function build(filters: Filter[]) {
  const p = new SqlParams();
  return { sql: filterConditions(filters, table, ctx, p), values: p.values };
}

test('values become $n parameters; the SQL text holds only whitelisted column text', () => {
  const evil = `x'; drop table users; --`;
  const { sql, values } = build([{ field: 'name', op: 'eq', values: [evil] }, { field: 'name', op: 'contains', values: ['50%_off\\'] }]);
  assert.equal(sql, [`d."Real_Name" = $1::text`, `d."Real_Name" ilike '%' || $2::text || '%'`]);
  assert.equal(values, [evil, '50\\%\\_off\\\\']);
  assert.not.ok(sql.join(' ').includes('drop'));
});

test('numbers: strings from filterBy[field] keys are read as numbers; non-numbers are a 400', () => {
  assert.equal(build([{ field: 'level', op: 'gte', values: ['2.5'] }]).values, [2.5]);
  assert.equal(build([{ field: 'level', op: 'in', values: [1, '2'] }]).values, [[1, 2]]);
  assert.throws(() => build([{ field: 'level', op: 'eq', values: ['abc'] }]), /needs a number/);
});

test('fault codes: code, string (Permanent = 4 and 5), Fault = any code above 0', () => {
  assert.equal(build([{ field: 'f', op: 'eq', values: ['Permanent'] }]).values, [[4, 5], false]);
  assert.equal(build([{ field: 'f', op: 'in', values: [6, 'None'] }]).values, [[6, 0], false]);
  assert.equal(build([{ field: 'f', op: 'eq', values: ['Fault'] }]).values, [[], true]);
  assert.match(build([{ field: 'f', op: 'ne', values: [4] }]).sql[0]!, /is null or not/);
  assert.throws(() => build([{ field: 'f', op: 'eq', values: ['Exploded'] }]), /no code named/);
});

test('the masked words None / Fault work on every fault field, for every caller (the mask itself: fault-masking.test.ts)', () => {
  for (const field of ['f', 't']) {
    assert.equal(build([{ field, op: 'eq', values: ['none'] }]).values, [[0], false], field);
    assert.equal(build([{ field, op: 'eq', values: ['Fault'] }]).values, [[], true], field);
  }
  assert.equal(build([{ field: 't', op: 'eq', values: ['Permanent'] }]).values, [[2], false]);
  assert.throws(() => build([{ field: 's', op: 'eq', values: ['None'] }]), /no code named/);
});

test('EventType: Fault stands for every fault event type; other names as they are; contains stays text', () => {
  assert.equal(build([{ field: 'e', op: 'in', values: ['fault', 'Model Change'] }]).values,
    [['PFault', 'TFault', 'SOTF', 'Fault Like', 'Fault <50', 'Overcurrent', 'FAULT_INITIAL', 'Model Change']]);
  assert.match(build([{ field: 'e', op: 'ne', values: ['Fault'] }]).sql[0]!, /is null or not/);
  assert.match(build([{ field: 'e', op: 'contains', values: ['Fault'] }]).sql[0]!, /ilike/);
});

test('State / FaultType strings come from the configured lists', () => {
  assert.equal(build([{ field: 's', op: 'eq', values: ['normal'] }]).values, [[0], false]);
  assert.throws(() => build([{ field: 's', op: 'eq', values: ['Reset'] }]), /no code named/);
});

test('ORDER BY: the caller\'s keys or the default, then the unique tie-breaker', () => {
  assert.is(orderBy([{ field: 'name', order: 'asc' }], table, [{ field: 'level', order: 'desc' }], ['r."id" desc']), 'd."Real_Name" asc, r."id" desc');
  assert.is(orderBy([], table, [{ field: 'level', order: 'desc' }], ['r."id" desc']), 'r."level" desc, r."id" desc');
});

test('rangedFirstPage: a range\'s first page in the default order, unfiltered', () => {
  const base = { page: 0, filters: [], sort: [], from: null, to: null };
  const day = Temporal.PlainDate.from('2026-09-26');
  const byDate = [{ field: 'date', order: 'desc' as const }];
  assert.is(rangedFirstPage({ ...base, from: day }, byDate), true);
  assert.is(rangedFirstPage({ ...base, to: day, sort: byDate }, byDate), true);
  assert.is(rangedFirstPage(base, byDate), false, 'no range');
  assert.is(rangedFirstPage({ ...base, from: day, page: 1 }, byDate), false, 'a deeper page');
  assert.is(rangedFirstPage({ ...base, from: day, sort: [{ field: 'date', order: 'asc' }] }, byDate), false, 'another order');
  assert.is(rangedFirstPage({ ...base, from: day, filters: [{ field: 'x', op: 'eq', values: [1] }] }, byDate), false, 'filtered');
});

test.run();
