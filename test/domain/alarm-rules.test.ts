// Alarm routing rules (domain/alarm-rules.ts, alarm-kinds.ts, checkin-clock.ts), one row per case.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { kindOfCode } from '../../domain/alarm-kinds.js';
import { digestCounts, escalationStepsDue, ruleMatches, stormStep, withinHours, type AlarmRule } from '../../domain/alarm-rules.js';
import { advanceClock, isOffline, median, offlineAfterS } from '../../domain/checkin-clock.js';

const rule = (over: Partial<AlarmRule> = {}): AlarmRule => ({
  id: 'r', OrganizationID: 'o', name: null, class: 'operations', kinds: ['permanent'], powerLines: [], groups: [], devices: [], recipients: ['x'], hours: null, escalation: null, enabled: true, ...over,
});
const place = { kind: 'permanent', IMEINumber: '1', PowerLineID: 'F1', groups: ['g1'] };

test('kinds of fault codes (spec 3.1)', () => {
  for (const [code, kind] of [[0, null], [1, null], [2, 'temporary'], [3, 'over-current'], [4, 'permanent'], [5, 'permanent'], [6, 'over-current'], [10, 'current-reset'], [11, 'temporary'], [21, 'dm1-port-fault'], [23, 'dm1-port-fault'], [400, null], [401, null], [402, 'low-battery'], [999, null]] as const) {
    assert.is(kindOfCode(code), kind, String(code));
  }
});

test('what and where', () => {
  const rows: [Partial<AlarmRule>, boolean][] = [
    [{}, true], [{ kinds: ['temporary'] }, false], [{ enabled: false }, false], [{ powerLines: ['F1'] }, true], [{ powerLines: ['F2'] }, false],
    [{ groups: ['g1'] }, true], [{ groups: ['g2'] }, false], [{ devices: ['1'] }, true], [{ devices: ['2'], powerLines: ['F2'] }, false],
  ];
  for (const [over, want] of rows) assert.is(ruleMatches(rule(over), place), want, JSON.stringify(over));
});

test('when: hours in the organisation\'s zone, windows across midnight', () => {
  const mon10utc = Date.UTC(2026, 0, 5, 10, 0); // Monday 04:00 in Chicago
  const rows: [Parameters<typeof withinHours>[0], number, string, boolean][] = [
    [null, mon10utc, 'UTC', true],
    [{ days: [1], from: '09:00', to: '17:00' }, mon10utc, 'UTC', true],
    [{ days: [1], from: '09:00', to: '17:00' }, mon10utc, 'America/Chicago', false],
    [{ days: [7], from: '22:00', to: '06:00' }, mon10utc, 'America/Chicago', true], // Sunday night's window, 04:00 Monday
    [{ days: [1], from: '22:00', to: '06:00' }, mon10utc, 'America/Chicago', false],
    [{ days: [2, 3], from: '00:00', to: '00:00' }, mon10utc, 'UTC', false],
  ];
  for (const [hours, at, zone, want] of rows) assert.is(withinHours(hours, at, zone), want, JSON.stringify([hours, zone]));
});

test('escalation steps, storms, digests', () => {
  const e = { afterMinutes: 10, roster: ['a', 'b'] };
  assert.equal(escalationStepsDue(e, 0, 9 * 60_000), []);
  assert.equal(escalationStepsDue(e, 0, 10 * 60_000), [0]);
  assert.equal(escalationStepsDue(e, 0, 60 * 60_000), [0, 1]);
  const limits = { threshold: 3, windowMs: 1 };
  assert.equal([stormStep(false, 4, limits), stormStep(true, 4, limits), stormStep(true, 3, limits), stormStep(false, 3, limits)], ['start', 'continue', 'end', 'calm']);
  assert.equal(digestCounts([{ PowerLineID: 'F2', class: 'operations' }, { PowerLineID: 'F1', class: 'operations' }, { PowerLineID: 'F2', class: 'operations' }, { PowerLineID: null, class: 'maintenance' }]),
    [{ PowerLineID: 'F2', class: 'operations', count: 2 }, { PowerLineID: null, class: 'maintenance', count: 1 }, { PowerLineID: 'F1', class: 'operations', count: 1 }]);
});

test('check-in clock: median of recent intervals, floor, ceiling, late check-ins', () => {
  assert.is(median([3, 1, 2]), 2);
  assert.is(median([4, 1, 2, 3]), 2.5);
  const NOW = 86_400_000;
  let c = advanceClock(null, 0, NOW);
  for (const t of [900, 1800, 2700].map((s) => s * 1000)) c = advanceClock(c, t, NOW);
  assert.is(c.expectedS, 900);
  assert.is(advanceClock(c, 1000, NOW), c, 'an older check-in changes nothing');
  const limits = { floorS: 300, ceilingS: 26 * 3600 };
  assert.is(offlineAfterS(null, limits), 26 * 3600, 'too little history: the ceiling');
  assert.is(offlineAfterS(900, limits), 1800, 'two intervals');
  assert.is(offlineAfterS(60, limits), 600, 'the floor');
  assert.is(offlineAfterS(86_400, limits), 26 * 3600, 'the ceiling');
  assert.ok(isOffline(0, 900, 1801_000, limits));
  assert.not.ok(isOffline(0, 900, 1800_000, limits));
});

test.run();
