// The row writers (api/device-records/row-json.ts) against the object presenters they replace on the read
// routes: for every row shape (device records, events of each spec 3.4 type, critical-data rows) and both time
// precisions, the written text is byte for byte JSON.stringify of the presented object.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseCodeStrings } from '../../domain/code-strings.js';
import { columnIndex, jsonValue, pageText, plain, rowWriter } from '../../api/device-records/row-json.js';
import { summaryText } from '../../api/device-records/device-summary.js';
import { deviceSummaryAnswer } from '../helpers/object-answers.js';
import {
  DEVICE_COLUMNS, deviceFields, EVENT_COLUMNS, eventFields, presentDevice, presentEventRow, presentRecord, presentStatus, RECORD_COLUMNS, recordFields,
  STATUS_COLUMNS, statusFields, type PresentContext,
} from '../../api/device-records/present.js';

const parsed = parseCodeStrings({ version: 1, State: { 0: 'Normal', 1: 'Fault "A"' }, FaultType: { 0: 'No fault', 2: 'Permanent' } });
if (!parsed.ok) throw new Error(parsed.reason);
const contexts: PresentContext[] = [
  { timeZone: 'America/Chicago', codeStrings: parsed.value, seconds: false },
  { timeZone: 'Australia/Lord_Howe', codeStrings: parsed.value, seconds: true },
];

/** A deterministic row of `columns`: nulls, numbers (with fractions, negatives), texts with quotes and non-ASCII, Dates. */
function rowOf(columns: readonly string[], seed: number, dates: readonly string[], overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  columns.forEach((c, i) => {
    const k = (seed * 31 + i * 7) % 5;
    row[c] = dates.includes(c) ? (k === 0 ? null : new Date(Date.UTC(2026, (seed + i) % 12, 1 + i, seed % 24, i, 7) + seed * 997))
      : k === 0 ? null : k === 1 ? seed - i * 1.25 : k === 2 ? `v"${c}"\\é\u2028${seed}` : k === 3 ? (seed + i) % 4 : undefined;
  });
  return { ...row, ...overrides };
}
const asArray = (row: Record<string, unknown>, columns: readonly string[]) => columns.map((c) => row[c]);

test('device records: the writer writes what JSON.stringify(presentRecord(row)) gives', () => {
  const write = rowWriter(recordFields(columnIndex(RECORD_COLUMNS)));
  for (const ctx of contexts) {
    for (let seed = 0; seed < 200; seed++) {
      const row = rowOf(RECORD_COLUMNS, seed, ['date', 'CreatedDate'], { State: seed % 3, FaultType: seed % 4 === 0 ? null : seed % 3, Ongoing_fault: seed % 5, ActualOngoingFault: seed % 7 === 0 ? null : seed % 6 });
      assert.is(write(asArray(row, RECORD_COLUMNS), ctx), JSON.stringify(presentRecord(row, ctx)));
    }
  }
});

test('events of every spec 3.4 type: the writer writes what JSON.stringify(presentEventRow(row)) gives', () => {
  const write = rowWriter(eventFields(columnIndex(EVENT_COLUMNS)));
  const types = ['PFault', 'Current Reset', 'SOTF', 'Fault Like', 'Fault <50', 'TFault', 'Overcurrent', 'Model Change'];
  for (const ctx of contexts) {
    for (let seed = 0; seed < 200; seed++) {
      const currents = { PrefaultCurrent: seed % 4 === 0 ? null : seed * 1.5, FaultCurrent: seed % 5 === 0 ? null : seed * 3, RecoverCurrent: seed % 6 === 0 ? null : seed / 3 };
      const row = rowOf(EVENT_COLUMNS, seed, ['EventTimestamp', 'PacketTimestamp'], { EventType: types[seed % types.length], ...currents });
      assert.is(write(asArray(row, EVENT_COLUMNS), ctx), JSON.stringify(presentEventRow(row, ctx)), `${String(row.EventType)} seed ${seed}`);
    }
  }
});

test('a row of the critical-data kind: fields left out are neither written nor read', () => {
  const selected = ['Source', ...EVENT_COLUMNS.filter((c) => c !== 'EventTable' && c !== 'Event_Record_ID'), 'Extra'];
  const write = rowWriter([['Source', plain(0)], ...eventFields(columnIndex(selected), ['EventTable', 'Event_Record_ID']), ['Extra', plain(selected.length - 1)]]);
  const row = rowOf(selected, 3, ['EventTimestamp', 'PacketTimestamp'], { EventType: 'PFault', PrefaultCurrent: 40 });
  const { EventTable: _t, Event_Record_ID: _i, ...event } = presentEventRow({ ...row, EventTable: null, Event_Record_ID: null }, contexts[0]!);
  assert.is(write(asArray(row, selected), contexts[0]!), JSON.stringify({ Source: row.Source, ...event, Extra: row.Extra ?? null }));
});

test('devices with their groups and latest status: what JSON.stringify of all-devices\' object gives', () => {
  const selected = [...DEVICE_COLUMNS, 'groups', ...STATUS_COLUMNS];
  const at = columnIndex(selected);
  const write = rowWriter([...deviceFields(at), ['groups', plain(at('groups'))], ...statusFields(at)]);
  for (const ctx of contexts) {
    for (let seed = 0; seed < 200; seed++) {
      const row = rowOf(selected, seed, ['LastCheckInTime', 'date'], { groups: seed % 3 === 0 ? [] : ['north-east', `g"${seed}`], Ongoing_fault: seed % 5, ActualOngoingFault: seed % 4 === 0 ? null : seed % 6 });
      assert.is(write(asArray(row, selected), ctx), JSON.stringify({ ...presentDevice(row, ctx), groups: row.groups, ...presentStatus(row, ctx) }));
    }
  }
});

test('a column that is not selected fails when the writer is built, not per request', () => {
  assert.throws(() => rowWriter(recordFields(columnIndex(['RecordID']))), /column IMEINumber is not selected/);
});

test('a field written by the route itself: its text stands as it is (a nested object, or null)', () => {
  const inner = rowWriter([['b', plain(1)]]);
  const write = rowWriter([['a', plain(0)], ['nested', { text: (row, ctx) => (row[1] == null ? 'null' : inner(row, ctx)) }], ['c', plain(2)]]);
  assert.is(write([1, 'x"', true], null), JSON.stringify({ a: 1, nested: { b: 'x"' }, c: true }));
  assert.is(write([1, null, undefined], null), JSON.stringify({ a: 1, nested: null, c: null }));
});

test('device-summary: the text written from its array rows is JSON.stringify of the summary the object rows made', () => {
  // Codes that share a display text (4 and 5 are both Permanent), a null code (never checked in), unknown codes.
  const codes = [null, 0, 1, 2, 4, 5, 6, 11, 400, 402, 999];
  for (let seed = 0; seed < 200; seed++) {
    const rows = codes.filter((_, i) => (seed >> (i % 8)) & 1 || i === seed % codes.length)
      .map((code, i) => ({ code, n: 1 + ((seed + i * 5) % 17), online: (seed + i) % 3, never: code === null ? 1 + (seed % 4) : 0, low: code === 402 ? 1 + (seed % 2) : 0 }));
    const hours = seed % 5 === 0 ? 0.5 : 26;
    assert.is(summaryText(rows.map((r) => [r.code, r.n, r.online, r.never, r.low] as const), hours), JSON.stringify(deviceSummaryAnswer(rows, hours)), `seed ${seed}`);
  }
  assert.is(summaryText([], 26), JSON.stringify(deviceSummaryAnswer([], 26)));
});

test('the page text is JSON.stringify of the page object, with and without next', () => {
  const rows = [{ a: 1 }, { b: 'x"' }];
  const written = rows.map((r) => JSON.stringify(r));
  for (const page of [
    { page: 0, limit: 50, total: 2, totalIsEstimate: false },
    { page: 3, limit: 2, total: 1234, totalIsEstimate: true, next: 'k1.abc' },
    { page: 0, limit: 2, total: 0, totalIsEstimate: false, next: null },
  ]) {
    assert.is(pageText(written, page), JSON.stringify({ data: rows, ...page }));
    assert.equal(JSON.parse(pageText([], page)), { data: [], ...page });
  }
  assert.is(jsonValue(undefined), 'null');
  for (const v of [0, -0, 1e21, 1.5e-7, -3.25, 2 ** 53 + 2, Number.MAX_VALUE, Number.NaN, Infinity, -Infinity, true, false, 'x"\u2028', [1, null], { a: 1 }, null]) {
    assert.is(jsonValue(v), JSON.stringify(v), String(v));
  }
});

test.run();
