// Silent-device triage's pure rules (fleet/silence-triage.ts, dark-section.ts, silence-area.ts;
// docs/decisions.md#silent-device-triage): each label on its own evidence, and the precedence between them. No servers.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { FeederNode } from '../../fleet/dark-section.js';
import { darkSections } from '../../fleet/dark-section.js';
import { areaGroups, distanceKm } from '../../fleet/silence-area.js';
import { MIN_SLOPE_DAYS } from '../../fleet/signal-trend.js';
import { BATTERY_DAYS, labelSilence, type SilentDevice, type TriageDay, type TriageInput } from '../../fleet/silence-triage.js';

const test = suite('silent-device triage');
const T0 = Date.parse('2026-11-28T10:00:00Z');
const MIN = 60_000;

// Feeder L9: H - T1 - T2 (trunk); T1 - LA1 - LA2 (lateral A); T1 - LB1 (lateral B). All line-powered, ~1 km apart.
type Name = 'H' | 'T1' | 'T2' | 'LA1' | 'LA2' | 'LB1';
const TOPOLOGY: [Name, Name | null, FeederNode['phase'], string | null][] = [
  ['H', null, 'ABC', 'Substation exit'], ['T1', 'H', 'ABC', 'Trunk 1'], ['T2', 'T1', 'ABC', null], ['LA1', 'T1', 'A', 'Lateral A'], ['LA2', 'LA1', 'A', null], ['LB1', 'T1', 'B', 'Lateral B'],
];
const imei = (n: string) => `L9-${n}`;

const days = (list: [batteryMin: number | null, rssi: number | null][]): TriageDay[] =>
  list.map(([b, r], i) => ({ day: `2026-11-${String(21 + i).padStart(2, '0')}`, batteryMin: b, rssi: r === null ? [] : [[r, 24]] }));
const healthy = days([[3.6, -75], [3.6, -75], [3.6, -76]]);

function device(id: string, over: Partial<SilentDevice> = {}): SilentDevice {
  return { imei: id, name: id, organizationId: 'north', powerLineId: 'L9', lat: 41.9, long: -87.6, lastMs: T0, batteryOrLine: 0, days: healthy, ...over };
}

/** The feeder with `silent` names silent at the given minutes after T0; every other indicator reports. */
function feeder(silent: Partial<Record<Name, number>>, over: Partial<Record<Name, Partial<FeederNode>>> = {}): FeederNode[] {
  return TOPOLOGY.map(([n, up, phase, section]) => {
    const at = silent[n];
    return { imei: imei(n), name: `F9 ${n}`, upstream: up ? imei(up) : null, phase, section, lineFed: true, silentSince: at === undefined ? null : T0 + at * MIN, reporting: at === undefined, ...over[n] };
  });
}

/** The silent devices of a feeder as triage is given them (each ~1 km from the last, northwards). */
const silentOf = (nodes: readonly FeederNode[], line = 'L9'): SilentDevice[] =>
  nodes.filter((n) => n.silentSince !== null).map((n, i) => device(n.imei, { name: n.name, powerLineId: line, lastMs: n.silentSince, lat: 41.9 + i * 0.01, batteryOrLine: n.lineFed ? 0 : 1 }));

const input = (nodes: FeederNode[], extra: SilentDevice[] = [], lastTrip = new Map<string, number>()): TriageInput =>
  ({ silent: [...silentOf(nodes), ...extra], feeders: new Map([['L9', nodes]]), lastTrip });

const labels = (r: ReturnType<typeof labelSilence>) => Object.fromEntries(r.verdicts.map((v) => [v.imei, v.label]));

test('never_commissioned: registered and never checked in, whatever else holds', () => {
  const r = labelSilence({ silent: [device('N1', { lastMs: null, days: [] })], feeders: new Map(), lastTrip: new Map() });
  assert.equal(r.verdicts, [{ imei: 'N1', silentSince: null, label: 'never_commissioned', evidence: { checkIns: 0 }, groupKey: null }]);
});

test('deenergised: line-powered indicators silent together below one point, no trip: the section is named by its point', () => {
  const nodes = feeder({ LA1: 0, LA2: 20 });
  const r = labelSilence(input(nodes));
  assert.equal(labels(r), { [imei('LA1')]: 'deenergised', [imei('LA2')]: 'deenergised' });
  assert.is(r.sections.length, 1);
  const s = r.sections[0]!;
  assert.equal([s.key, s.point.imei, s.upstream?.imei, s.label, s.phase, s.powerLineId, s.organizationId], ['deenergised:L9:L9-LA1', imei('LA1'), imei('T1'), 'Lateral A', 'A', 'L9', 'north']);
  assert.equal(s.devices.map((d) => d.imei), [imei('LA1'), imei('LA2')]);
  const v = r.verdicts[0]!;
  assert.is(v.groupKey, s.key);
  assert.equal([v.evidence.section, v.evidence.devices, (v.evidence.point as { imei: string }).imei], ['Lateral A', 2, imei('LA1')]);
});

test('deenergised: the topmost dark point is named (a dark trunk below T1 takes its laterals with it)', () => {
  const r = labelSilence(input(feeder({ T1: 0, T2: 5, LA1: 10, LA2: 15, LB1: 30 })));
  assert.equal(r.sections.map((s) => [s.point.imei, s.upstream?.imei, s.label, s.devices.length]), [[imei('T1'), imei('H'), 'Trunk 1', 5]]);
});

test('deenergised: the whole line dark from its head, named so', () => {
  const r = labelSilence(input(feeder({ H: 0, T1: 1, T2: 2, LA1: 3, LA2: 4, LB1: 5 }, { H: { section: null } })));
  assert.equal(r.sections.map((s) => [s.point.imei, s.upstream, s.label]), [[imei('H'), null, 'the whole line from F9 H']]);
});

test('not deenergised: a reporting line-powered indicator below the point proves the line live there', () => {
  const r = labelSilence(input(feeder({ T1: 0, LA1: 5, LB1: 10 })));
  assert.equal(r.sections.filter((s) => s.point.imei === imei('T1')), [], 'T2 and LA2 still report below T1');
  // LA1 alone: LA2 below it reports. LB1 alone: fewer than two.
  assert.equal(darkSections(feeder({ LA1: 0 })), []);
});

test('not deenergised: a battery-powered indicator below the point neither breaks nor counts', () => {
  const nodes = feeder({ LA1: 0, LA2: 10 }, { LA2: { lineFed: false } });
  assert.equal(darkSections(nodes), [], 'LA1 alone is not a group');
  const three = feeder({ T1: 0, T2: 5, LA1: 10, LB1: 15 }, { LA2: { lineFed: false } });
  assert.equal(darkSections(three).map((s) => [s.point.imei, s.devices.length]), [[imei('T1'), 4]], 'the reporting battery indicator LA2 does not break T1\'s section');
});

test('not deenergised: silent hours apart is not together', () => {
  assert.equal(darkSections(feeder({ LA1: 0, LA2: 180 })), []);
});

test('not deenergised: a trip on the line before the silence is the fault incident\'s outage', () => {
  const nodes = feeder({ LA1: 0, LA2: 20 });
  const r = labelSilence(input(nodes, [], new Map([['L9', T0 - 10 * MIN]])));
  assert.equal(r.sections, []);
  assert.equal(labels(r), { [imei('LA1')]: 'unknown', [imei('LA2')]: 'unknown' });
  assert.is(r.verdicts[0]!.evidence.tripOnLineAt, new Date(T0 - 10 * MIN).toISOString());
  // A trip long before the silence explains nothing.
  assert.is(labelSilence(input(nodes, [], new Map([['L9', T0 - 3 * 60 * MIN]]))).sections.length, 1);
});

test('a carrier outage across lines is a cluster, never deenergised', () => {
  const nodes = feeder({ LA1: 0, LA2: 20 });
  const otherLine = [0, 1, 2].map((i) => device(`K7-${i}`, { powerLineId: 'K7', lat: 41.905 + i * 0.005, long: -87.61, lastMs: T0 + 10 * MIN }));
  const r = labelSilence(input(nodes, otherLine));
  assert.equal(r.sections, []);
  assert.equal(new Set(r.verdicts.map((v) => v.label)), new Set(['cluster']));
  assert.equal(new Set(r.verdicts.map((v) => v.groupKey)).size, 1, 'one cluster');
  assert.equal([r.verdicts[0]!.evidence.devices, r.verdicts[0]!.evidence.powerLines, r.verdicts[0]!.evidence.radiusKm], [5, ['K7', 'L9'], 5]);
});

test('a silent battery-powered device in the area is the carrier\'s sign too', () => {
  const nodes = feeder({ LA1: 0, LA2: 20 });
  const r = labelSilence(input(nodes, [device('B1', { batteryOrLine: 1, lat: 41.905, lastMs: T0 + 5 * MIN })]));
  assert.equal(r.sections, []);
  assert.equal(labels(r), { B1: 'cluster', [imei('LA1')]: 'cluster', [imei('LA2')]: 'cluster' });
});

test('cluster: CLUSTER_MIN devices of one area within the hour; fewer, farther or hours apart are judged alone', () => {
  const at = (id: string, km: number, min: number) => device(id, { powerLineId: null, batteryOrLine: 1, lat: 41.9 + km / 111, lastMs: T0 + min * MIN });
  const run = (list: SilentDevice[]) => labels(labelSilence({ silent: list, feeders: new Map(), lastTrip: new Map() }));
  assert.equal(run([at('A', 0, 0), at('B', 2, 10), at('C', 4, 50)]), { A: 'cluster', B: 'cluster', C: 'cluster' });
  assert.equal(run([at('A', 0, 0), at('B', 2, 10)]), { A: 'unknown', B: 'unknown' }, 'two are not several');
  assert.equal(run([at('A', 0, 0), at('B', 2, 10), at('C', 12, 20)]), { A: 'unknown', B: 'unknown', C: 'unknown' }, 'C is 8 km from B');
  assert.equal(run([at('A', 0, 0), at('B', 2, 10), at('C', 3, 200)]), { A: 'unknown', B: 'unknown', C: 'unknown' }, 'C went quiet hours later');
  assert.equal(run([at('A', 0, 0), at('B', 2, 10), device('C', { lat: null, long: null, batteryOrLine: 1, powerLineId: null, lastMs: T0 })]), { A: 'unknown', B: 'unknown', C: 'unknown' }, 'no coordinates, no area');
});

test('battery_exhausted: low or falling before the silence, not on line power', () => {
  const one = (d: SilentDevice) => labelSilence({ silent: [d], feeders: new Map(), lastTrip: new Map() }).verdicts[0]!;
  const low = one(device('B', { batteryOrLine: 1, days: days([[3.12, -75], [3.08, -75]]) }));
  assert.is(low.label, 'battery_exhausted');
  assert.equal([low.evidence.low, low.evidence.lastVolts], [true, 3.08]);
  const falling = one(device('B', { batteryOrLine: 1, days: days([[3.55, -75], [3.5, -75], [3.42, -75]]) }));
  assert.equal([falling.label, falling.evidence.falling, falling.evidence.low, falling.evidence.dropVolts], ['battery_exhausted', true, false, 0.13]);
  assert.is(one(device('B', { batteryOrLine: 1, days: days([[3.55, -75], [3.52, -75]]) })).label, 'unknown', 'flat and high');
  // The triage reads a month for the signal (TRIAGE_DAYS) but judges the battery on its last week (BATTERY_DAYS).
  const slow = days([[3.62, -75], [3.56, -75], [3.5, -75], ...Array.from({ length: BATTERY_DAYS }, () => [3.5, -75] as [number, number])]);
  assert.is(one(device('B', { batteryOrLine: 1, days: slow })).label, 'unknown', 'a fall before the last week, then flat for it');
  assert.is(one(device('B', { batteryOrLine: 0, days: days([[3.0, -75]]) })).label, 'unknown', 'on line power its battery did not end it');
  assert.is(one(device('B', { batteryOrLine: null, days: days([[3.0, -75]]) })).label, 'battery_exhausted', 'power source not reported: the battery is read');
});

test('signal_decline: weak or falling RSSI before the silence', () => {
  const one = (d: SilentDevice) => labelSilence({ silent: [d], feeders: new Map(), lastTrip: new Map() }).verdicts[0]!;
  const weak = one(device('S', { days: days([[3.6, -95], [3.6, -103]]) }));
  assert.equal([weak.label, weak.evidence.weak, weak.evidence.lastMedianDbm], ['signal_decline', true, -103]);
  // Falling as the signal trend says falling (fleet/signal-trend.ts): MIN_SLOPE_DAYS medians, a slope at or under its threshold.
  const falling = one(device('S', { days: days(Array.from({ length: MIN_SLOPE_DAYS }, (_, i) => [3.6, -80 - i] as [number, number])) }));
  assert.equal([falling.label, falling.evidence.falling, falling.evidence.slopeDbPerDay], ['signal_decline', true, -1]);
  assert.is(one(device('S', { days: days([[3.6, -80], [3.6, -84], [3.6, -88], [3.6, -92]]) })).label, 'unknown', 'four days are too few for the trend');
  assert.is(one(device('S', { days: days([[3.6, -75], [3.6, -75], [3.6, -76]]) })).label, 'unknown', 'a dB over three days is noise');
  assert.is(one(device('S', { days: [] })).label, 'unknown', 'no rollup days');
});

test('precedence: never_commissioned > deenergised > cluster > battery_exhausted > signal_decline > unknown', () => {
  const dying = days([[3.05, -104], [3.0, -106]]);
  // Battery beats signal.
  assert.is(labelSilence({ silent: [device('X', { batteryOrLine: 1, days: dying })], feeders: new Map(), lastTrip: new Map() }).verdicts[0]!.label, 'battery_exhausted');
  // The group beats a member's own trend: three dying batteries going quiet in one hour are the carrier.
  const trio = [0, 1, 2].map((i) => device(`C${i}`, { batteryOrLine: 1, powerLineId: null, lat: 41.9 + i * 0.01, days: dying, lastMs: T0 + i * MIN }));
  assert.equal(new Set(labelSilence({ silent: trio, feeders: new Map(), lastTrip: new Map() }).verdicts.map((v) => v.label)), new Set(['cluster']));
  // De-energised beats cluster: a lateral of five on one line is also an area group, and reads as the section.
  const nodes = feeder({ T1: 0, T2: 5, LA1: 10, LA2: 15, LB1: 30 });
  const r = labelSilence(input(nodes, [device('N', { lastMs: null })]));
  assert.equal(new Set(r.verdicts.filter((v) => v.imei !== 'N').map((v) => v.label)), new Set(['deenergised']));
  assert.is(r.verdicts.find((v) => v.imei === 'N')!.label, 'never_commissioned');
  // Devices of the area group left over after a section are a cluster only if CLUSTER_MIN remain.
  const left = [0, 1, 2].map((i) => device(`Q${i}`, { batteryOrLine: 0, powerLineId: 'L9', lat: 41.9 + i * 0.005, lastMs: T0 + i * MIN }));
  const r2 = labelSilence({ silent: [...silentOf(feeder({ LA1: 0, LA2: 20 })), ...left], feeders: new Map([['L9', feeder({ LA1: 0, LA2: 20 })]]), lastTrip: new Map() });
  assert.equal(labels(r2), { [imei('LA1')]: 'deenergised', [imei('LA2')]: 'deenergised', Q0: 'cluster', Q1: 'cluster', Q2: 'cluster' });
});

test('areas: distance and grouping', () => {
  assert.ok(Math.abs(distanceKm({ lat: 0, long: 0 }, { lat: 1, long: 0 }) - 111.19) < 0.01);
  assert.equal(areaGroups([
    { imei: 'b', lat: 41.9, long: -87.6, lastMs: T0 }, { imei: 'a', lat: 41.93, long: -87.6, lastMs: T0 + 30 * MIN }, { imei: 'c', lat: 41.96, long: -87.6, lastMs: T0 + 59 * MIN },
  ]), [['a', 'b', 'c']], 'linked through a (each ~3.3 km from the next)');
});

test.run();
