// The evidence one incident gives about each indicator (indicator-audit/evidence.ts), table-tested on a small
// feeder, with each guard against a false positive shown on its own row.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { couldTell, incidentEvidence, skipReason, type AuditDevice, type AuditIncident } from '../../indicator-audit/evidence.js';
import type { Phase } from '../../domain/feeder-topology.js';
import { DEFAULT_FLOOR_S } from '../../domain/checkin-clock.js';
import { ONGOING_FAULT } from '../../domain/ongoing-fault-codes.js';

// Chains per conductor: A0 - A1 - A2 - A3 and B0 - B1 - B2; LA1 - LA2 a lateral below A1.
const dev = (imei: string, upstream: string | null, phase: Phase | null, couldTellIt = true): AuditDevice => ({ imei, upstream, phase, couldTell: couldTellIt });
const FEEDER = [
  dev('A0', null, 'A'), dev('A1', 'A0', 'A'), dev('A2', 'A1', 'A'), dev('A3', 'A2', 'A'),
  dev('B0', null, 'B'), dev('B1', 'B0', 'B'), dev('B2', 'B1', 'B'), dev('LA1', 'A1', 'A'), dev('LA2', 'LA1', 'A'),
];
const silent = (...imeis: string[]) => FEEDER.map((d) => (imeis.includes(d.imei) ? { ...d, couldTell: false } : d));
const incident = (tripped: string[], o: Partial<AuditIncident> = {}): AuditIncident => ({
  kind: 'permanent', located: true, testFault: false, tripped: new Set(tripped), devices: FEEDER, ...o,
});
const verdicts = (i: AuditIncident) => incidentEvidence(i).map((e) => `${e.imei}:${e.verdict}${e.otherPhase ? '+other phase' : ''}`);

const rows: [string, AuditIncident, string[]][] = [
  ['every indicator on the path tripped: each confirmed, nothing else said', incident(['A0', 'A1', 'A2']), ['A0:confirmed', 'A1:confirmed', 'A2:confirmed']],
  ['silent between two that tripped: missed', incident(['A0', 'A2']), ['A0:confirmed', 'A1:missed', 'A2:confirmed']],
  ['a silent head above two that tripped: missed', incident(['A1', 'A2']), ['A0:missed', 'A1:confirmed', 'A2:confirmed']],
  ['silent above a single trip: no one knows which is wrong, the trip is unconfirmed', incident(['A2']), ['A2:unconfirmed']],
  ['a lone trip co-tripping only with another phase', incident(['A2', 'B0', 'B1']), ['A2:unconfirmed+other phase', 'B0:confirmed', 'B1:confirmed']],
  ['a lone trip at a head: nothing above could confirm it', incident(['A0']), []],
  ['a silent indicator that did not report since the fault is no evidence', incident(['A0', 'A2'], { devices: silent('A1') }), ['A0:confirmed', 'A2:confirmed']],
  ['a lone trip below indicators that did not report is no evidence', incident(['A3'], { devices: silent('A0', 'A1', 'A2') }), []],
  ['beyond the fault: untripped below a tripped one says nothing', incident(['A0', 'A1']), ['A0:confirmed', 'A1:confirmed']],
  ['momentary incidents are no evidence', incident(['A0', 'A2'], { kind: 'momentary' }), []],
  ['unknown incidents (load surges) are no evidence', incident(['A2'], { kind: 'unknown' }), []],
  ['incidents not located are no evidence', incident(['A0', 'A2'], { located: false }), []],
  ['test faults are no evidence', incident(['A2'], { testFault: true }), []],
  ['a line with a device outside the topology is no evidence', incident(['A0', 'A2'], { devices: [...FEEDER, dev('X', null, null)] }), []],
  ['a trip of a device outside the topology makes the line no evidence', incident(['A0', 'A2', 'elsewhere']), []],
  ['a lateral: the trunk above confirms it, the silent lateral head in between missed', incident(['A0', 'A1', 'LA2']), ['A0:confirmed', 'A1:confirmed', 'LA1:missed', 'LA2:confirmed']],
];
for (const [name, i, expected] of rows) test(name, () => assert.equal(verdicts(i), expected));

test('skip reasons name why', () => {
  assert.is(skipReason(incident(['A0'], { kind: 'momentary' })), 'not permanent');
  assert.is(skipReason(incident(['A0'], { located: false })), 'not located');
  assert.is(skipReason(incident(['A0'], { testFault: true })), 'test fault');
  assert.is(skipReason(incident(['A0', 'elsewhere'])), 'incomplete topology');
  assert.is(skipReason(incident(['A0'])), null);
});

test('could tell: reported after the last trip and not offline', () => {
  const limits = { floorS: DEFAULT_FLOOR_S, ceilingS: 26 * 3600 };
  const trip = Date.UTC(2026, 10, 1, 12);
  const latest = (minutes: number, fault = 0) => ({ date: trip + minutes * 60_000, actualOngoingFault: fault, expectedS: 900 });
  assert.ok(couldTell(latest(20), trip, trip + 30 * 60_000, limits));
  assert.not.ok(couldTell(latest(-5), trip, trip + 30 * 60_000, limits), 'no check-in since the trip');
  assert.not.ok(couldTell(latest(20), trip, trip + 5 * 3_600_000, limits), 'offline by the communication-lost rule when the incident closes');
  assert.not.ok(couldTell(latest(20, ONGOING_FAULT.DISCONNECTED), trip, trip + 30 * 60_000, limits), 'Disconnected');
  assert.not.ok(couldTell(null, trip, trip, limits), 'never checked in');
});

test.run();
