// Feeder topology (docs/decisions.md#feeder-incidents): each indicator may name the one directly upstream of it
// on the same power line, its phase and a label for the stretch of line below it. The rules a topology must
// keep, checked over the state after an import (the file's devices over the stored ones), so a file can
// build a feeder in any row order and a later file can move one branch.

export const PHASES = ['A', 'B', 'C', 'ABC'] as const;
export type Phase = (typeof PHASES)[number];

export interface TopologyNode {
  imei: string;
  powerLineId: string | null;
  /** The indicator directly upstream; null: a feeder head (when `phase` is set) or no topology. */
  upstream: string | null;
  /** null: the device is not part of any topology. */
  phase: Phase | null;
}

export interface TopologyProblem {
  imei: string;
  field: 'UpstreamIMEI' | 'Phase' | 'PowerLineID';
  message: string;
}

/** A single-phase indicator may hang below a three-phase one (a lateral tapped off the trunk), not the reverse. */
export function phaseFits(child: Phase, parent: Phase): boolean {
  return parent === 'ABC' || child === parent;
}

/** The single phases a device's phase covers. */
export const coveredPhases = (p: Phase): ('A' | 'B' | 'C')[] => (p === 'ABC' ? ['A', 'B', 'C'] : [p]);

/**
 * Every broken rule of a topology: an upstream that is unknown, on another power line, on another phase,
 * in a cycle; a device with an upstream but no phase or power line; two heads for one phase of a line.
 *
 * @example
 *   checkTopology([{ imei: '1', powerLineId: 'L', upstream: null, phase: 'ABC' }, { imei: '2', powerLineId: 'L', upstream: '1', phase: 'A' }]) // []
 */
export function checkTopology(nodes: readonly TopologyNode[]): TopologyProblem[] {
  const problems: TopologyProblem[] = [];
  const byImei = new Map(nodes.map((n) => [n.imei, n]));
  for (const n of nodes) {
    if (n.upstream !== null && n.phase === null) problems.push({ imei: n.imei, field: 'Phase', message: 'is required with UpstreamIMEI (A, B, C or ABC)' });
    if (n.phase !== null && n.powerLineId === null) problems.push({ imei: n.imei, field: 'PowerLineID', message: 'is required for a device in a feeder topology (Phase is set)' });
    if (n.upstream === null) continue;
    const up = byImei.get(n.upstream);
    if (n.upstream === n.imei) problems.push({ imei: n.imei, field: 'UpstreamIMEI', message: 'names the device itself' });
    else if (!up) problems.push({ imei: n.imei, field: 'UpstreamIMEI', message: `"${n.upstream}" is not a device in this file or the database` });
    else if (up.powerLineId !== n.powerLineId) problems.push({ imei: n.imei, field: 'UpstreamIMEI', message: `"${n.upstream}" is on power line ${JSON.stringify(up.powerLineId)}, not ${JSON.stringify(n.powerLineId)}` });
    else if (up.phase === null) problems.push({ imei: n.imei, field: 'UpstreamIMEI', message: `"${n.upstream}" has no Phase, so it is not part of the feeder topology` });
    else if (n.phase !== null && !phaseFits(n.phase, up.phase)) problems.push({ imei: n.imei, field: 'Phase', message: `${n.phase} cannot hang below "${n.upstream}" on phase ${up.phase}` });
  }
  // Cycles: follow upstream links; a walk that meets itself is a loop (reported once, at its smallest IMEI).
  const reported = new Set<string>();
  for (const start of nodes) {
    const seen: string[] = [];
    let at: TopologyNode | undefined = start;
    while (at && at.upstream !== null && !seen.includes(at.imei)) {
      seen.push(at.imei);
      at = byImei.get(at.upstream);
    }
    if (at && seen.includes(at.imei)) {
      const loop = seen.slice(seen.indexOf(at.imei));
      const first = [...loop].sort()[0]!;
      if (!reported.has(first)) {
        loop.forEach((i) => reported.add(i));
        problems.push({ imei: first, field: 'UpstreamIMEI', message: `forms a loop: ${[...loop, loop[0]].join(' -> ')}` });
      }
    }
  }
  // One head per phase of each power line.
  const heads = new Map<string, string[]>();
  for (const n of nodes) {
    if (n.phase === null || n.upstream !== null || n.powerLineId === null) continue;
    for (const p of coveredPhases(n.phase)) {
      const key = `${n.powerLineId}\u0000${p}`;
      heads.set(key, [...(heads.get(key) ?? []), n.imei]);
    }
  }
  const twice = new Set<string>();
  for (const [key, imeis] of heads) {
    if (imeis.length < 2) continue;
    const [line, phase] = key.split('\u0000');
    const [head, ...others] = [...imeis].sort();
    for (const imei of others) {
      if (twice.has(imei)) continue;
      twice.add(imei);
      problems.push({ imei, field: 'UpstreamIMEI', message: `power line ${JSON.stringify(line)} already has a head on phase ${phase} ("${head}"); name this device's upstream indicator` });
    }
  }
  return problems;
}
