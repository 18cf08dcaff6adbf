// The day strip's range (api/fleet/health.ts stripRange) and fleet health retention's first kept day
// (storage/health-retention.ts): pure rules, no servers.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Temporal } from 'temporal-polyfill';
import { DEFAULT_DAYS, MAX_DAYS, stripRange } from '../../api/fleet/health.js';
import { firstKeptHealthDay, HEALTH_MIN_MONTHS } from '../../storage/health-retention.js';

const NOW = Date.parse('2026-11-21T12:00:00Z');
const d = (s: string) => Temporal.PlainDate.from(s);
const range = (from: string | null, to: string | null) => {
  const r = stripRange(from ? d(from) : null, to ? d(to) : null, NOW);
  return [r.from.toString(), r.to.toString()];
};

test('default: the last 30 UTC days up to today', () => {
  assert.equal(range(null, null), ['2026-10-23', '2026-11-21']);
  assert.is(DEFAULT_DAYS, 30);
});

test('only `to`: the 30 days up to it; only `from`: 30 days from it, not past today', () => {
  assert.equal(range(null, '2026-06-30'), ['2026-06-01', '2026-06-30']);
  assert.equal(range('2026-06-01', null), ['2026-06-01', '2026-06-30']);
  assert.equal(range('2026-11-10', null), ['2026-11-10', '2026-11-21']);
});

test(`at most ${MAX_DAYS} days: one more is a 400 naming from`, () => {
  assert.equal(range('2025-10-18', '2026-11-21'), ['2025-10-18', '2026-11-21']);
  try {
    range('2025-10-17', '2026-11-21');
    assert.unreachable('401 days accepted');
  } catch (err) {
    assert.is((err as { details?: { parameter?: string } }).details?.parameter, 'from');
  }
});

test('the strip\'s days are each UTC day from `from` to `to`, as walking them with Temporal gives (none when from is after to)', () => {
  for (let i = 0; i < 300; i++) {
    const from = d('2024-01-01').add({ days: (i * 37) % 900 });
    const to = i % 7 === 0 ? null : from.add({ days: ((i * 13) % 420) - 10 });
    if (to !== null && from.until(to).days + 1 > MAX_DAYS) continue;
    const r = stripRange(from, to, NOW);
    const walked: string[] = [];
    for (let x = Temporal.PlainDate.from(r.from); Temporal.PlainDate.compare(x, Temporal.PlainDate.from(r.to)) <= 0; x = x.add({ days: 1 })) walked.push(x.toString());
    assert.equal(r.days, walked, `${from.toString()} .. ${to?.toString() ?? 'default'}`);
  }
});

test(`retention keeps whole months: at least ${HEALTH_MIN_MONTHS}, else the organisation's; null keeps everything`, () => {
  assert.is(firstKeptHealthDay(12, NOW), '2023-11-01');
  assert.is(firstKeptHealthDay(36, NOW), '2023-11-01');
  assert.is(firstKeptHealthDay(48, NOW), '2022-11-01');
  assert.is(firstKeptHealthDay(null, NOW), null);
});

test.run();
