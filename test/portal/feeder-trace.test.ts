// The portal's feeder trace: the minimum spanning tree of a power line's devices, checked against Prim's
// O(n²) algorithm on generated point sets, plus the cases Delaunay leaves out (collinear, duplicates).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { feederTree, type Located } from '../../portal/src/map/feeder-trace.js';

function planeLength(points: readonly Located[]) {
  const cos = Math.cos((points.reduce((s, p) => s + p.lat, 0) / points.length) * Math.PI / 180);
  return (a: number, b: number) => Math.hypot((points[a]!.lng - points[b]!.lng) * cos, points[a]!.lat - points[b]!.lat);
}

/** Total length of the minimum spanning tree by Prim's algorithm (the slow, obvious reference). */
function primLength(points: readonly Located[]): number {
  const len = planeLength(points);
  const n = points.length;
  const inTree = new Array<boolean>(n).fill(false);
  const best = new Array<number>(n).fill(Infinity);
  best[0] = 0;
  let total = 0;
  for (let k = 0; k < n; k++) {
    let u = -1;
    for (let i = 0; i < n; i++) if (!inTree[i] && (u < 0 || best[i]! < best[u]!)) u = i;
    inTree[u] = true;
    total += best[u]!;
    for (let i = 0; i < n; i++) if (!inTree[i]) best[i] = Math.min(best[i]!, len(u, i));
  }
  return total;
}

/** True when the edges join all n points into one tree. */
function spans(n: number, edges: [number, number][]): boolean {
  if (edges.length !== Math.max(0, n - 1)) return false;
  const adj = Array.from({ length: n }, () => [] as number[]);
  for (const [a, b] of edges) { adj[a]!.push(b); adj[b]!.push(a); }
  const seen = new Set([0]);
  const stack = [0];
  while (stack.length) for (const v of adj[stack.pop()!]!) if (!seen.has(v)) { seen.add(v); stack.push(v); }
  return seen.size === n;
}

const point = fc.record({ lat: fc.double({ min: 29.5, max: 30.5, noNaN: true }), lng: fc.double({ min: -95.5, max: -94.5, noNaN: true }) });

test('fewer than two devices: nothing to draw', () => {
  assert.equal(feederTree([]), []);
  assert.equal(feederTree([{ lat: 30, lng: -95 }]), []);
  assert.equal(feederTree([{ lat: 30, lng: -95 }, { lat: 30.01, lng: -95 }]), [[0, 1]]);
});

test('the tree spans every device and is as short as Prim\'s', () => {
  fc.assert(fc.property(fc.array(point, { minLength: 2, maxLength: 120 }), (points) => {
    const edges = feederTree(points);
    const len = planeLength(points);
    const total = edges.reduce((s, [a, b]) => s + len(a, b), 0);
    return spans(points.length, edges) && Math.abs(total - primLength(points)) < 1e-9;
  }), { numRuns: 200 });
});

test('devices in a straight line are chained in order along it', () => {
  const points = [3, 0, 4, 1, 2].map((i) => ({ lat: 30 + i * 0.001, lng: -95 + i * 0.002 }));
  const edges = feederTree(points).map(([a, b]) => [points[a]!.lat, points[b]!.lat].sort().map((x) => Math.round((x - 30) * 1000)));
  assert.equal(edges.sort((x, y) => x[0]! - y[0]!), [[0, 1], [1, 2], [2, 3], [3, 4]]);
});

test('devices at the same place are all part of the tree', () => {
  const points = [{ lat: 30, lng: -95 }, { lat: 30, lng: -95 }, { lat: 30.01, lng: -95.01 }, { lat: 30, lng: -95 }, { lat: 30.02, lng: -95 }];
  assert.ok(spans(points.length, feederTree(points)));
  const twoPlaces = [{ lat: 30, lng: -95 }, { lat: 30, lng: -95 }, { lat: 31, lng: -95 }];
  assert.ok(spans(3, feederTree(twoPlaces)));
});

test('10,000 devices on one line: one tree of 9,999 edges', () => {
  const points = Array.from({ length: 10_000 }, (_, i) => ({ lat: 30 + ((i * 7919) % 10_007) / 1e5, lng: -95 + ((i * 104_729) % 10_009) / 1e5 }));
  assert.ok(spans(points.length, feederTree(points)));
});

test.run();
