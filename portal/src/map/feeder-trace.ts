// A feeder's likely route, drawn from where its fault indicators hang. The data holds no line geometry (a
// device only names its power line), so the portal draws the shortest tree that joins the power line's
// devices: the Euclidean minimum spanning tree. A distribution feeder is a tree too (a trunk with laterals),
// and indicators sit along it, so the shortest tree through them follows the real route closely wherever the
// devices are dense; the map labels it "approximate".
//
// The minimum spanning tree is a subgraph of the Delaunay triangulation, so Kruskal over Delaunay's edges
// (about 3n of them) finds it in O(n log n): a 10,000-device line takes milliseconds, not the O(n²) of Prim.
import Delaunator from 'delaunator';

export interface Located { lat: number; lng: number }

/** [a, b] pairs of indexes into the input: the edges of the tree. */
export type TreeEdge = [number, number];

/**
 * The minimum spanning tree of `points` (plane distances, longitude scaled by the cosine of the mean
 * latitude, which is exact enough across a feeder's few kilometres). Devices at the same place are joined
 * by a zero-length edge, so every device is part of the one tree: n points give n - 1 edges.
 */
export function feederTree(points: readonly Located[]): TreeEdge[] {
  const n = points.length;
  if (n < 2) return [];
  const cos = Math.cos((points.reduce((s, p) => s + p.lat, 0) / n) * Math.PI / 180);
  const coords = new Float64Array(n * 2);
  points.forEach((p, i) => { coords[2 * i] = p.lng * cos; coords[2 * i + 1] = p.lat; });
  const length = (a: number, b: number) => Math.hypot(coords[2 * a]! - coords[2 * b]!, coords[2 * a + 1]! - coords[2 * b + 1]!);

  const candidates = candidateEdges(coords, n);
  candidates.sort((x, y) => length(x[0], x[1]) - length(y[0], y[1]) || x[0] - y[0] || x[1] - y[1]);
  const sets = new DisjointSets(n);
  const tree: TreeEdge[] = [];
  for (const [a, b] of candidates) {
    if (sets.union(a, b)) tree.push([a, b]);
    if (tree.length === n - 1) break;
  }
  return tree;
}

/**
 * Delaunay's edges, plus what the triangulation leaves out: points all on one line (no triangle at all)
 * are joined in order along it, and a point at the same place as an earlier one (Delaunator skips
 * duplicates) is joined to that one.
 */
function candidateEdges(coords: Float64Array, n: number): TreeEdge[] {
  const edges: TreeEdge[] = [];
  const firstAt = new Map<string, number>();
  for (let i = 0; i < n; i++) {
    const key = `${coords[2 * i]},${coords[2 * i + 1]}`;
    const same = firstAt.get(key);
    if (same === undefined) firstAt.set(key, i);
    else edges.push([same, i]);
  }
  const d = new Delaunator(coords);
  if (d.triangles.length === 0) {
    // Collinear: sort the distinct points along the line (by x, then y) and chain them.
    const distinct = [...firstAt.values()].sort((a, b) => coords[2 * a]! - coords[2 * b]! || coords[2 * a + 1]! - coords[2 * b + 1]!);
    for (let i = 1; i < distinct.length; i++) edges.push([distinct[i - 1]!, distinct[i]!]);
    return edges;
  }
  const { triangles, halfedges } = d;
  for (let e = 0; e < triangles.length; e++) {
    // Each inner edge appears as two half-edges; keep the one with the larger index (and every hull edge).
    if (e > halfedges[e]!) {
      const from = triangles[e]!;
      const to = triangles[e % 3 === 2 ? e - 2 : e + 1]!;
      edges.push([from, to]);
    }
  }
  return edges;
}

/** Union-find with path halving and union by size. */
class DisjointSets {
  private readonly parent: Int32Array;
  private readonly size: Int32Array;
  constructor(n: number) {
    this.parent = Int32Array.from({ length: n }, (_, i) => i);
    this.size = new Int32Array(n).fill(1);
  }
  private find(x: number): number {
    while (this.parent[x] !== x) {
      this.parent[x] = this.parent[this.parent[x]!]!;
      x = this.parent[x]!;
    }
    return x;
  }
  /** Joins the sets of a and b; false when they were already one. */
  union(a: number, b: number): boolean {
    let ra = this.find(a), rb = this.find(b);
    if (ra === rb) return false;
    if (this.size[ra]! < this.size[rb]!) [ra, rb] = [rb, ra];
    this.parent[rb] = ra;
    this.size[ra] = this.size[ra]! + this.size[rb]!;
    return true;
  }
}
