// The pure rules of reliability analytics (reliability/): what an incident adds to the day tables as it
// changes, the period and its previous period, trend, ranking, repeats and the per-km and customer figures.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { reliabilityDelta, utcDay, type IncidentFacts } from '../../reliability/contribution.js';
import { isPeriodProblem, MAX_PERIOD_DAYS, period, previousPeriod } from '../../reliability/period.js';
import { customerIncidentsEstimate, per100Km, rank, repeats, trend } from '../../reliability/ranking.js';

const at = Date.parse('2026-03-10T23:59:30Z');
const unknown: IncidentFacts = { organizationId: 'north', powerLineId: 'L1', kind: 'unknown', firstTripAt: at, sections: [], trippedIndicators: 1 };
const section = (imei: string, label = `below ${imei}`) => ({ from: { imei }, label });

test('a new incident adds one of its kind on its line\'s UTC day and on each section\'s', () => {
  assert.equal(reliabilityDelta(null, unknown), {
    lines: [{ organizationId: 'north', powerLineId: 'L1', day: '2026-03-10', permanent: 0, momentary: 0, unknown: 1, trippedIndicators: 1 }], sections: [],
  });
  const located = reliabilityDelta(null, { ...unknown, kind: 'momentary', sections: [section('A'), section('B'), section('A')], trippedIndicators: 3 });
  assert.equal(located.sections.map((s) => [s.sectionImei, s.momentary, s.trippedIndicators]), [['A', 1, 3], ['B', 1, 3]], 'a section listed twice (two phases) counts once');
});

test('a change of kind, sections, day or indicators moves the counts: old contribution out, new in', () => {
  const later = { ...unknown, kind: 'permanent' as const, sections: [section('B', 'Lateral B')], trippedIndicators: 2 };
  const d = reliabilityDelta({ ...unknown, sections: [section('A')] }, later);
  assert.equal(d.lines, [{ organizationId: 'north', powerLineId: 'L1', day: '2026-03-10', permanent: 1, momentary: 0, unknown: -1, trippedIndicators: 1 }]);
  assert.equal(d.sections.map((s) => [s.sectionImei, s.label, s.permanent, s.unknown, s.trippedIndicators]), [['A', 'below A', 0, -1, -1], ['B', 'Lateral B', 1, 0, 2]]);
  // An earlier trip joining moves the first trip across midnight: the incident moves to the earlier day.
  const earlier = reliabilityDelta(unknown, { ...unknown, firstTripAt: at - 60_000 + 0 - 24 * 3600_000 });
  assert.equal(earlier.lines.map((l) => [l.day, l.unknown, l.trippedIndicators]), [['2026-03-10', -1, -1], ['2026-03-09', 1, 1]]);
});

test('the same state twice adds nothing (a replayed step writes no change); a deleted incident takes its counts away', () => {
  const s = { ...unknown, sections: [section('A')] };
  assert.equal(reliabilityDelta(s, { ...s, sections: [section('A')] }), { lines: [], sections: [] });
  assert.equal(reliabilityDelta(s, null).lines[0]!.unknown, -1);
});

test('days are UTC days of device time', () => {
  assert.is(utcDay(Date.parse('2026-12-31T23:59:59.999Z')), '2026-12-31');
  assert.is(utcDay(Date.parse('2027-01-01T00:30:00+01:00')), '2026-12-31');
});

test('period: inclusive UTC days, 30 by default, refused when reversed or too long; the previous period has the same length and ends the day before', () => {
  const now = Date.parse('2026-11-28T08:00:00Z');
  assert.equal(period(undefined, undefined, now), { from: '2026-10-30', to: '2026-11-28', days: 30 });
  assert.equal(period('2026-01-01', '2026-12-31', now), { from: '2026-01-01', to: '2026-12-31', days: 365 });
  assert.equal(previousPeriod({ from: '2026-01-01', to: '2026-12-31', days: 365 }), { from: '2025-01-01', to: '2025-12-31', days: 365 });
  assert.equal(previousPeriod({ from: '2024-03-01', to: '2024-03-01', days: 1 }), { from: '2024-02-29', to: '2024-02-29', days: 1 });
  const reversed = period('2026-02-01', '2026-01-01', now);
  assert.ok(isPeriodProblem(reversed) && reversed.parameter === 'from');
  assert.ok(isPeriodProblem(period('2000-01-01', '2026-01-01', now)));
  assert.not.ok(isPeriodProblem(period('2021-01-01', new Date(Date.parse('2021-01-01') + (MAX_PERIOD_DAYS - 1) * 86_400_000).toISOString().slice(0, 10), now)));
});

test('trend, repeats, ranking (ties never by kind), per 100 km, customer estimate', () => {
  assert.equal(trend(5, 3), { previousIncidents: 3, change: 2, direction: 'up' });
  assert.equal(trend(0, 2).direction, 'down');
  assert.equal(trend(1, 1).direction, 'same');
  assert.equal([repeats(1), repeats(2)], [false, true]);
  const ranked = rank([{ id: 'b', incidents: 2, trippedIndicators: 5 }, { id: 'a', incidents: 2, trippedIndicators: 5 }, { id: 'c', incidents: 9, trippedIndicators: 1 }, { id: 'd', incidents: 2, trippedIndicators: 7 }]);
  assert.equal(ranked.map((r) => `${r.rank}${r.id}`), ['1c', '2d', '3a', '4b']);
  assert.is(per100Km(3, 12), 25);
  assert.is(per100Km(3, null), null);
  assert.is(customerIncidentsEstimate([{ incidents: 2, customers: 100 }, { incidents: 1, customers: null }, { incidents: 3, customers: 10 }]), 230);
  assert.is(customerIncidentsEstimate([{ incidents: 2, customers: null }]), null);
});

test.run();
