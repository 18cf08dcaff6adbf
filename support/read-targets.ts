// The pure half of the storage bench's `--compare` (bench/storage-compare.ts): issue 45's targets for each read
// row, judged from one size's A/B figures and, with two sizes, from the largest against the smallest
// (docs/benchmarks.md#reads-at-scale).

/**
 * The IMEI of the storage bench's floor row without a statement (bench/read-rows.ts FLOOR_ROWS): one the API refuses
 * before any query (api/device-records/reach.ts isPlausibleImei). A plausible one ran the reach statement.
 */
export const IMPLAUSIBLE_IMEI = 'not.an.imei';

/**
 * A row's figures on one side at one size: CPU per request in each process, the median alone, the open loop's p50/p99;
 * `items`, the rows its answer holds (`data` of a page, the entries of a list; null for an object or a 304).
 */
export interface SideFigures { apiCpuMs: number; postgresCpuMs: number; alone: number; p50: number; p99: number; failed: number; items?: number | null }

/** OFFSET pages: bounded by their offset, not by the page, so they keep their cost at any size. */
export const isOffsetPage = (endpoint: string): boolean => / page \d+$/.test(endpoint);

/** An OFFSET page deeper than 100 pages: excepted from the latency targets (reported, not judged). */
export const isDeepOffsetPage = (endpoint: string): boolean => isOffsetPage(endpoint) && Number(/ page (\d+)$/.exec(endpoint)![1]) > 100;

/**
 * The largest new/old ratio of CPU per request (API + Postgres) a row may have: 0.3 for the data-log,
 * critical-data and device-summary first and keyset pages, 0.5 for every other row (OFFSET pages included).
 */
export function cpuRatioTarget(endpoint: string): number {
  const heavy = ['data-log', 'critical-data', 'device-summary'].some((e) => endpoint.startsWith(e));
  return heavy && !isOffsetPage(endpoint) ? 0.3 : 0.5;
}

/** p99 at the bench's rate at the largest size must be under this (deep OFFSET pages excepted). */
export const P99_TARGET_MS = 50;
/** A row alone at the largest size may cost at most this times its smallest size's figure (OFFSET pages excepted). */
export const GROWTH_TARGET = 1.3;

export const cpuOf = (f: SideFigures): number => f.apiCpuMs + f.postgresCpuMs;

/** The rows an answer's JSON body holds (SideFigures `items`): a page's `data`, a list's entries; null for anything else. */
export function answerItems(body: unknown): number | null {
  if (Array.isArray(body)) return body.length;
  const data = body !== null && typeof body === 'object' ? (body as { data?: unknown }).data : undefined;
  return Array.isArray(data) ? data.length : null;
}

/** `answerGrew`: the rows of the answer at the smallest and the largest size, when they differ (growth is then not judged). */
export interface RowVerdict { cpuRatio: number; cpuTarget: number; cpuMet: boolean; p99Met: boolean | null; growth: number | null; growthMet: boolean | null; answerGrew: [number, number] | null }

/**
 * One row's verdict. `p99` is judged only at the largest size (`largest`), growth only there and only with a
 * smallest-size figure (`smallest`); null where a target does not apply. Growth is the cost of the same answer over
 * more history: a row whose answer holds more rows at the larger size (a device's week holds a check-in at 1M and
 * seventeen at 20M, the bench's histories being denser, not longer) is reported with both counts, not judged
 * (docs/benchmarks.md#reads-at-scale).
 */
export function judge(endpoint: string, older: SideFigures, newer: SideFigures, { largest, smallest }: { largest: boolean; smallest: SideFigures | null }): RowVerdict {
  const cpuRatio = cpuOf(newer) / cpuOf(older);
  const cpuTarget = cpuRatioTarget(endpoint);
  const p99Met = largest && !isDeepOffsetPage(endpoint) ? newer.p99 < P99_TARGET_MS && newer.failed === 0 : null;
  const judged = largest && smallest !== null && !isOffsetPage(endpoint);
  const [before, after] = [smallest?.items ?? null, newer.items ?? null];
  const answerGrew = judged && before !== null && after !== null && before !== after ? [before, after] as [number, number] : null;
  const growth = judged && answerGrew === null ? newer.alone / smallest.alone : null;
  return { cpuRatio, cpuTarget, cpuMet: cpuRatio <= cpuTarget, p99Met, growth, growthMet: growth === null ? null : growth <= GROWTH_TARGET, answerGrew };
}
