import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { deviceCurrentsRow, HOURLY_COLUMNS } from '../../domain/device-currents.js';
import { checkIn, fixtureCheckIn } from './builders.js';

const HOURS = Array.from({ length: 24 }, (_, n) => n * 10 + 0.5);

test('fixture 001: H<n> holds HourlyAverages[n], keyed by date and IMEI, with the name at check-in (spec 2.4)', () => {
  const c = fixtureCheckIn('001-plain-checkin.json');
  const row = deviceCurrentsRow(c, 'North F12 Pole 40 Phase A');
  assert.ok(row);
  if (!row) return;
  assert.is(row.PacketTimestamp, '2026-11-20T14:00:00.000Z');
  assert.is(row.IMEINumber, '861000000000000');
  assert.is(row.PeakCurrent, 210);
  assert.is(row.PeakCurrentTimestamp, '2026-11-20T09:12:00.000Z');
  assert.is(row.CurrentName, 'North F12 Pole 40 Phase A');
  assert.is(row.AverageCurrentH0, 100);
  assert.is(row.AverageCurrentH23, 134.5);
  assert.equal(HOURLY_COLUMNS.map((col) => row[col]), c.currents?.HourlyAverages);
});

// [name, currents, expected H0..H23 or null]
const rows: [string, Parameters<typeof checkIn>[0], number[] | null][] = [
  ['24 averages -> one row, in order', { currents: { PeakCurrent: null, PeakCurrentTimestamp: null, HourlyAverages: HOURS } }, HOURS],
  ['no currents -> no row (docs/decisions.md)', { currents: null }, null],
  ['wrong count (not validated) -> no row', { currents: { PeakCurrent: 1, PeakCurrentTimestamp: null, HourlyAverages: [1, 2] } }, null],
];
for (const [name, change, expected] of rows) {
  test(name, () => {
    const row = deviceCurrentsRow(checkIn(change), null);
    assert.equal(row ? HOURLY_COLUMNS.map((col) => row[col]) : null, expected);
  });
}

test('column names AverageCurrentH0 ... AverageCurrentH23', () => {
  assert.is(HOURLY_COLUMNS.length, 24);
  assert.is(HOURLY_COLUMNS[0], 'AverageCurrentH0');
  assert.is(HOURLY_COLUMNS[23], 'AverageCurrentH23');
});

test.run();
