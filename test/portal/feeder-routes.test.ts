import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { feederRoutes as routesOf, type Feeder } from '../../portal/src/map/feeder-routes.js';

// The portal's ranking in short: None 0, a fault 4.
const feederRoutes = (feeders: Feeder[]) => routesOf(feeders, { rank: (s) => (s === 'None' ? 0 : 4), faultRank: 4 });

const feeder = (id: string, states: string[], at: [number, number][]): Feeder =>
  ({ id, name: `Feeder ${id}`, devices: at.map(([lat, lng], i) => ({ id: `${id}${i}`, lat, lng, state: states[i] ?? 'None' })) });

test('a stretch two power lines share is drawn once, named after both, in the worse style', () => {
  const routes = feederRoutes([
    feeder('A', ['None', 'None', 'None'], [[0, 0], [0, 1], [0, 2]]),
    feeder('B', ['None', 'Permanent'], [[0, 0], [0, 1]]),
  ]);
  const shared = routes.find((r) => r.feeders.length === 2)!;
  assert.equal(shared.feeders.map((f) => f.id), ['B', 'A'], 'the faulted line first: a click filters to it');
  assert.equal([shared.faulted, shared.worst, shared.segments.length], [true, 'Permanent', 1]);
  const own = routes.find((r) => r.feeders.length === 1)!;
  assert.equal([own.feeders[0]!.id, own.faulted, own.segments.length], ['A', false, 1]);
});

test('faulted routes come last (drawn on top); devices at one place add no segment', () => {
  const routes = feederRoutes([
    feeder('F', ['Temporary', 'None'], [[1, 1], [1, 2]]),
    feeder('H', ['None', 'None', 'None'], [[2, 1], [2, 2], [2, 2]]),
  ]);
  assert.equal(routes.map((r) => [r.feeders[0]!.id, r.faulted]), [['H', false], ['F', true]]);
  assert.is(routes[0]!.segments.length, 1);
});

test('a line with one located device has no route', () => {
  assert.equal(feederRoutes([feeder('S', ['None'], [[0, 0]])]), []);
});

test('with an imported topology the route follows its links, not the approximate trace', () => {
  // Four devices in a square: the trace would join neighbours; the topology makes a star from device 0.
  const f: Feeder = { ...feeder('T', [], [[0, 0], [0, 1], [1, 0], [1, 1]]), links: [['T1', 'T0'], ['T2', 'T0'], ['T3', 'T0'], ['T9', 'T0']] };
  const [route] = feederRoutes([f]);
  assert.is(route!.feeders[0]!.topology, true);
  assert.equal(route!.segments.map(([, b]) => b), [[0, 0], [0, 0], [0, 0]], 'every segment ends at device 0; a link to a device without a location drops out');
  assert.is(feederRoutes([feeder('U', [], [[0, 0], [0, 1]])])[0]!.feeders[0]!.topology, false);
});

test.run();
