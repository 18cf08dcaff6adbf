import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fault, num, text, type FieldTable } from '../../api/device-records/fields.js';
import { filterConditions, orderBy, SqlParams } from '../../api/device-records/sql.js';
import type { Filter } from '../../api/device-records/list-params.js';
import { parseCodeStrings } from '../../domain/code-strings.js';

const table: FieldTable = { name: text('d."Real_Name"'), level: num('r."level"'), f: fault('r."ActualOngoingFault"'), s: { sql: 'r."State"', type: 'state' } };
const parsed = parseCodeStrings({ version: 1, State: { 0: 'Normal', 1: 'Fault' }, FaultType: {} });
if (!parsed.ok) throw new Error(parsed.reason);
const ctx = (mask: boolean) => ({ maskFaultDetails: mask, codeStrings: parsed.value });

function build(filters: Filter[], mask = false) {
  const p = new SqlParams();
  return { sql: filterConditions(filters, table, ctx(mask), p), values: p.values };
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

test('masked: only None / Fault, numbers refused (they would reveal the masked detail)', () => {
  assert.equal(build([{ field: 'f', op: 'eq', values: ['none'] }], true).values, [[0], false]);
  assert.equal(build([{ field: 'f', op: 'eq', values: ['Fault'] }], true).values, [[], true]);
  assert.throws(() => build([{ field: 'f', op: 'eq', values: [4] }], true), /masks fault details/);
  assert.throws(() => build([{ field: 'f', op: 'eq', values: ['Permanent'] }], true), /masks fault details/);
});

test('State / FaultType strings come from the configured lists', () => {
  assert.equal(build([{ field: 's', op: 'eq', values: ['normal'] }]).values, [[0], false]);
  assert.throws(() => build([{ field: 's', op: 'eq', values: ['Reset'] }]), /no code named/);
});

test('ORDER BY: the caller\'s keys or the default, then the unique tie-breaker', () => {
  assert.is(orderBy([{ field: 'name', order: 'asc' }], table, [{ field: 'level', order: 'desc' }], ['r."id" desc']), 'd."Real_Name" asc, r."id" desc');
  assert.is(orderBy([], table, [{ field: 'level', order: 'desc' }], ['r."id" desc']), 'r."level" desc, r."id" desc');
});

test.run();
