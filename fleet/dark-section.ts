// Line-powered indicators that went quiet together below one point of a feeder (silent-device triage,
// docs/decisions.md#silent-device-triage): what a de-energised section with no trip looks like. A line-powered
// indicator (BatteryOrLine 0 at its last check-in) that still reports proves the line under it is live; one
// that went silent may have lost its supply. The "dark" part of a feeder is a subtree of the topology
// (domain/feeder-topology.ts) holding no reporting line-powered indicator and at least DARK_MIN line-powered
// indicators that fell silent within one hour of each other; its top is the topology point named. Battery
// indicators, and silent ones outside that hour, prove nothing either way: they neither break nor count.
import type { Phase } from '../domain/feeder-topology.js';
import { CLUSTER_WINDOW_MS } from './silence-area.js';

/** Line-powered indicators silent together, at least, for a section to read as de-energised. */
export const DARK_MIN = 2;

export interface FeederNode {
  imei: string;
  name: string | null;
  upstream: string | null;
  phase: Phase;
  /** Its Section label (the stretch of line below it). */
  section: string | null;
  /** BatteryOrLine was 0 (Line) at its last check-in. */
  lineFed: boolean;
  /** Its last check-in (ms) when it is silent by the offline rule; null while it reports or before its first check-in. */
  silentSince: number | null;
  /** Checked in at least once and not silent. */
  reporting: boolean;
}

export interface SectionEnd { imei: string; name: string | null }

export interface DarkSection {
  /** The topology point: the top indicator of the dark subtree. */
  point: SectionEnd;
  /** The indicator directly above it, still reporting (or a battery one); null: the feeder head is dark. */
  upstream: SectionEnd | null;
  phase: Phase;
  /** The point's Section label, else "below <upstream>", else "the whole line from <point>". */
  label: string;
  /** The line-powered indicators silent together below the point (the point itself included), by IMEI. */
  devices: (SectionEnd & { silentSince: number })[];
  /** The earliest and latest last check-in of those devices (ms). */
  silentFrom: number;
  silentTo: number;
}

const end = (n: FeederNode): SectionEnd => ({ imei: n.imei, name: n.name });

/** Silent line-powered indicators in runs whose consecutive last check-ins are within the hour. */
function hourRuns(nodes: readonly FeederNode[]): Set<string>[] {
  const silent = nodes.filter((n) => n.lineFed && n.silentSince !== null).sort((a, b) => a.silentSince! - b.silentSince!);
  const runs: Set<string>[] = [];
  let last = -Infinity;
  for (const n of silent) {
    if (n.silentSince! - last > CLUSTER_WINDOW_MS) runs.push(new Set());
    runs[runs.length - 1]!.add(n.imei);
    last = n.silentSince!;
  }
  return runs;
}

/**
 * The dark sections of one feeder (nodes: its indicators with topology). Each returned section is maximal: its
 * upstream indicator is not dark. Sorted by point IMEI.
 *
 * @example
 *   darkSections([head(reporting), lateralTop(silent), lateralEnd(silent)]) // [{ point: lateralTop, upstream: head, devices: [top, end] }]
 */
export function darkSections(nodes: readonly FeederNode[]): DarkSection[] {
  const byImei = new Map(nodes.map((n) => [n.imei, n]));
  const children = new Map<string, FeederNode[]>();
  for (const n of nodes) if (n.upstream !== null && byImei.has(n.upstream)) children.set(n.upstream, [...(children.get(n.upstream) ?? []), n]);
  const sections: DarkSection[] = [];
  for (const run of hourRuns(nodes)) {
    // dark: no reporting line-powered indicator in the subtree; memo per run (a topology is a forest, checked on import).
    const dark = new Map<string, boolean>();
    const isDark = (n: FeederNode, seen: Set<string>): boolean => {
      const known = dark.get(n.imei);
      if (known !== undefined) return known;
      if (seen.has(n.imei)) return false;
      seen.add(n.imei);
      const own = !(n.lineFed && n.reporting);
      const d = (children.get(n.imei) ?? []).reduce((ok, c) => isDark(c, seen) && ok, own);
      dark.set(n.imei, d);
      return d;
    };
    const inRun = (n: FeederNode, out: FeederNode[]) => {
      if (run.has(n.imei)) out.push(n);
      for (const c of children.get(n.imei) ?? []) inRun(c, out);
      return out;
    };
    for (const n of nodes) {
      if (!isDark(n, new Set())) continue;
      const up = n.upstream === null ? undefined : byImei.get(n.upstream);
      if (up && isDark(up, new Set())) continue;
      const members = inRun(n, []).sort((a, b) => (a.imei < b.imei ? -1 : 1));
      if (members.length < DARK_MIN) continue;
      const times = members.map((m) => m.silentSince!);
      sections.push({
        point: end(n), upstream: up ? end(up) : null, phase: n.phase,
        label: n.section ?? (up ? `below ${up.name ?? up.imei}` : `the whole line from ${n.name ?? n.imei}`),
        devices: members.map((m) => ({ ...end(m), silentSince: m.silentSince! })), silentFrom: Math.min(...times), silentTo: Math.max(...times),
      });
    }
  }
  return sections.sort((a, b) => (a.point.imei < b.point.imei ? -1 : 1));
}
