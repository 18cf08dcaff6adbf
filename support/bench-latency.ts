// The pure half of the SCADA bench's latency figures (bench/dnp3.bench.ts): each fault's SQS-to-master time,
// split at the commit of its stored check-in, per protocol; the p50/p95/min/max of each; and the table that
// puts DNP3 and IEC 104 side by side. No I/O, so test/bench/ checks it without servers.
import { percentile } from './stats.js';

/** Nearest-rank p50 and p95 with min and max, in ms rounded to 0.1; NaN when there is no sample. */
export interface Distribution { p50: number; p95: number; min: number; max: number }

const r1 = (n: number) => Math.round(n * 10) / 10;

export function distribution(xs: readonly number[]): Distribution {
  const s = [...xs].sort((a, b) => a - b);
  if (s.length === 0) return { p50: NaN, p95: NaN, min: NaN, max: NaN };
  return { p50: r1(percentile(s, 50)), p95: r1(percentile(s, 95)), min: r1(s[0]!), max: r1(s.at(-1)!) };
}

/** One fault's time in ms from SendMessage to the master, and its two halves when a commit fell between. */
export interface FaultLatency { totalMs: number; toStoredMs?: number; storedToMasterMs?: number }

/**
 * `sent`, `received` and `commits`: process.hrtime.bigint() readings. The split is the first commit heard after
 * the send and not after the master's receipt: a commit after it cannot be the one that carried the fault.
 */
export function splitAtCommit(sent: bigint, received: bigint, commits: readonly bigint[]): FaultLatency {
  const ms = (ns: bigint) => Number(ns) / 1e6;
  const commit = commits.find((c) => c > sent && c <= received);
  const totalMs = ms(received - sent);
  return commit === undefined ? { totalMs } : { totalMs, toStoredMs: ms(commit - sent), storedToMasterMs: ms(received - commit) };
}

/** One protocol's latencies over the faults it received. */
export interface ProtocolLatency { totalMs: Distribution; toStoredMs: Distribution; storedToMasterMs: Distribution; received: number; split: number }

export function protocolLatency(faults: readonly FaultLatency[]): ProtocolLatency {
  const split = faults.filter((f) => f.toStoredMs !== undefined);
  return {
    totalMs: distribution(faults.map((f) => f.totalMs)),
    toStoredMs: distribution(split.map((f) => f.toStoredMs!)),
    storedToMasterMs: distribution(split.map((f) => f.storedToMasterMs!)),
    received: faults.length,
    split: split.length,
  };
}

const cell = (n: number) => (Number.isNaN(n) ? '–' : String(n));
const cells = (d: Distribution) => `${cell(d.p50)} | ${cell(d.p95)} | ${cell(d.min)} | ${cell(d.max)}`;

/** The latency table, DNP3's columns beside IEC 104's: one row per stretch of the path (`transport` between the stages). */
export function latencyTable(dnp3: ProtocolLatency, iec104: ProtocolLatency | undefined, transport = 'Kafka'): string[] {
  const rows: [string, keyof Pick<ProtocolLatency, 'totalMs' | 'toStoredMs' | 'storedToMasterMs'>][] = [
    ['SendMessage to the event in the master', 'totalMs'],
    [`SendMessage to stored (bridge, ${transport}, stages, commit)`, 'toStoredMs'],
    ['stored to the event in the master (feed, station, TLS)', 'storedToMasterMs'],
  ];
  if (!iec104) {
    return ['| ms | DNP3 p50 | p95 | min | max |', '|---|---|---|---|---|', ...rows.map(([name, k]) => `| ${name} | ${cells(dnp3[k])} |`)];
  }
  return [
    '| ms | DNP3 p50 | p95 | min | max | IEC 104 p50 | p95 | min | max |',
    '|---|---|---|---|---|---|---|---|---|',
    ...rows.map(([name, k]) => `| ${name} | ${cells(dnp3[k])} | ${cells(iec104[k])} |`),
  ];
}
