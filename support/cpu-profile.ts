// The pure half of bench/profile-summary.ts: a V8 CPU profile's samples as self time per owner (an npm package,
// a faultline file, a Node.js module, V8's own entries) and per function, idle left out.
import { relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

export interface CallFrame { functionName: string; url: string; lineNumber: number }
export interface ProfileNode { id: number; callFrame: CallFrame; children?: number[] }
export interface Profile { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] }

const ROOT = resolve(new URL('..', import.meta.url).pathname);

/** Where a frame belongs: an npm package, a faultline file, a Node.js internal module or V8's own entry. */
export function ownerOf(frame: CallFrame): string {
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(frame.url);
  if (pkg) return pkg[1]!;
  if (frame.url.startsWith('file://') || frame.url.startsWith('/')) return relative(ROOT, frame.url.replace(/^file:\/\//, ''));
  if (frame.url) return frame.url;
  return frame.functionName.startsWith('(') ? frame.functionName : `(${frame.functionName || 'native'})`;
}

/**
 * The profile with its frames' file URLs made relative to the checkout, so a committed profile names no path
 * of the machine that recorded it (test/structure/machine-paths.test.ts); DevTools shows them as they are.
 */
export function portable<P extends { nodes: { callFrame: { url: string } }[] }>(profile: P): P {
  const prefix = `${pathToFileURL(ROOT).href}/`;
  for (const node of profile.nodes) {
    if (node.callFrame.url.startsWith(prefix)) node.callFrame.url = node.callFrame.url.slice(prefix.length);
  }
  return profile;
}

/**
 * The nodes under a call into `node:inspector`: a process that profiles itself (bench/read-server.ts) is sampled
 * while the profiler stops and serialises the profile, a native "dispatch" under the session's `post` that was a
 * fifth to two fifths of a 100-request profile's busy time and no part of the requests.
 */
function profilerOwn(p: Profile): Set<number> {
  const own = new Set<number>();
  const visit = (id: number, under: boolean, byId: Map<number, ProfileNode>) => {
    const node = byId.get(id);
    if (!node) return;
    const inside = under || node.callFrame.url === 'node:inspector';
    if (inside) own.add(id);
    for (const child of node.children ?? []) visit(child, inside, byId);
  };
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const children = new Set(p.nodes.flatMap((n) => n.children ?? []));
  for (const n of p.nodes) if (!children.has(n.id)) visit(n.id, false, byId);
  return own;
}

/** Self time per owner and per function, in ms, and the busy total (all samples but idle and the profiler's own: profilerOwn). */
export function summarise(p: Profile): { busyMs: number; totalMs: number; byOwner: Map<string, number>; byFunction: Map<string, number> } {
  const nodes = new Map(p.nodes.map((n) => [n.id, n]));
  const own = profilerOwn(p);
  const byOwner = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let busy = 0;
  let total = 0;
  p.samples.forEach((id, i) => {
    const dt = p.timeDeltas[i] ?? 0;
    total += dt;
    const frame = nodes.get(id)!.callFrame;
    if (frame.functionName === '(idle)' || own.has(id)) return;
    busy += dt;
    const owner = ownerOf(frame);
    byOwner.set(owner, (byOwner.get(owner) ?? 0) + dt);
    const fn = frame.url ? `${frame.functionName || '(anonymous)'} ${owner}:${frame.lineNumber + 1}` : owner;
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + dt);
  });
  return { busyMs: busy / 1000, totalMs: total / 1000, byOwner: scale(byOwner), byFunction: scale(byFunction) };
}

const scale = (m: Map<string, number>) => new Map([...m].map(([k, v]) => [k, v / 1000]));

export function table(title: string, m: Map<string, number>, busyMs: number, top: number): string {
  const rows = [...m].sort((a, b) => b[1] - a[1]).slice(0, top).map(([k, ms]) => `| ${((100 * ms) / busyMs).toFixed(1)} % | ${k.replaceAll('|', '\\|')} |`);
  return [`| share of busy | ${title} |`, '|---|---|', ...rows].join('\n');
}

