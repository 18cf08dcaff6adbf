import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isDuplicateCheckIn } from '../../domain/duplicate-checkin.js';
import { checkIn, fixtureCheckIn } from './builders.js';

const c = checkIn({ device: { date: '2026-11-20T14:05:00.000Z' } });

// docs/decisions.md#duplicate-device-record: [name, stored dates of the same IMEI, duplicate?]
const rows: [string, string | null | Iterable<string>, boolean][] = [
  ['no stored record', null, false],
  ['same date as the latest record', '2026-11-20T14:05:00.000Z', true],
  ['same instant, other spelling', '2026-11-20T14:05:00Z', true],
  ['same instant, other offset', '2026-11-20T08:05:00-06:00', true],
  ['1 ms later is another check-in', '2026-11-20T14:05:00.001Z', false],
  ['1 ms earlier is another check-in', '2026-11-20T14:04:59.999Z', false],
  ['set containing the date', new Set(['2026-11-20T14:00:00.000Z', '2026-11-20T14:05:00.000Z']), true],
  ['set without the date', new Set(['2026-11-20T14:00:00.000Z']), false],
  ['empty set', new Set<string>(), false],
  ['array of dates', ['2026-11-20T14:05:00Z'], true],
];
for (const [name, stored, duplicate] of rows) {
  test(name, () => {
    assert.is(isDuplicateCheckIn(c, stored), duplicate);
  });
}

test('fixtures 002 and 003: 003 repeats 002', () => {
  const first = fixtureCheckIn('002-permanent-fault.json');
  assert.ok(isDuplicateCheckIn(fixtureCheckIn('003-permanent-fault-resent.json'), first.device_data.date));
  assert.not.ok(isDuplicateCheckIn(fixtureCheckIn('011-old-event-ids-dropped.json'), first.device_data.date));
});

test.run();
