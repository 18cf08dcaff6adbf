// The read API's measured rows (issue 19's 28 endpoint and caller pairs, and the keyset pages since): one list
// that the storage bench (latency at a rate) and the read-cost bench (CPU per request) both measure, so a row
// added here is measured by both.
import type { Hono } from 'hono';
import type pg from 'pg';
import { createApp } from '../api/app.js';
import { addMonths, monthBounds, monthOfMs } from '../domain/storage-months.js';
import { generateDeviceData, registerDevices } from '../support/device-data.js';
import { importDemoData } from '../support/reference-data.js';
import { IMPLAUSIBLE_IMEI } from '../support/read-targets.js';

/** The generated devices' IMEI prefix. */
export const PREFIX = '8630000';

/** The last `months` months, the current one included: the months the generated check-ins spread over. */
export const monthsUpTo = (nowMs: number, months: number): string[] =>
  Array.from({ length: months }, (_, i) => addMonths(monthOfMs(nowMs), i - months + 1));

/** `devices` generated devices of the organisation north, spread over its two feeders and two groups (readRows asks for one in north-east). */
export const registerGeneratedDevices = (pool: pg.Pool, devices: number): Promise<void> =>
  registerDevices(pool, { prefix: PREFIX, devices, org: 'north', powerLines: ['north-F12', 'north-F7'], groups: ['north-east', 'north-west'] });

/** The demo organisation, `devices` generated devices in its two groups and feeders, and a partition per month of `months`. */
export async function prepareReadDatabase(pool: pg.Pool, { devices, months }: { devices: number; months: readonly string[] }): Promise<void> {
  await importDemoData(pool);
  await registerGeneratedDevices(pool, devices);
  for (const m of months) await pool.query('select fl_ensure_month($1::date)', [`${m}-01`]);
}

/**
 * Generates check-ins `first` to `first + count` over `span` in million-row steps, then VACUUM ANALYZE. The one
 * seeder of the read benches (storage, read-cost, reliability); it says each step with its rate and the time
 * left, since 20M check-ins take about half an hour.
 */
export async function loadCheckIns(pool: pg.Pool, { devices, span, first, count }: { devices: number; span: readonly string[]; first: number; count: number }): Promise<void> {
  const t0 = performance.now();
  for (let done = 0; done < count;) {
    const n = Math.min(1_000_000, count - done);
    await generateDeviceData(pool, { prefix: PREFIX, devices, first: first + done, count: n, months: [...span] });
    done += n;
    const s = (performance.now() - t0) / 1000;
    const left = done < count ? `, about ${Math.ceil(((s / done) * (count - done)) / 60)} min left` : '';
    console.log(`  loaded ${(first + done).toLocaleString('en')} of ${(first + count).toLocaleString('en')} check-ins (${Math.round(s)} s, ${Math.round(done / s).toLocaleString('en')}/s${left})`);
  }
  const v0 = performance.now();
  await pool.query('vacuum analyze');
  console.log(`  vacuum analyze: ${Math.round((performance.now() - v0) / 1000)} s`);
}

/** The two callers: the organisation's admin, and a user whose reach is one group (north-east). */
export const CALLERS = ['admin', 'user'] as const;
export type Caller = (typeof CALLERS)[number];
const LOGINS: Record<Caller, { email: string; password: string }> = {
  admin: { email: 'admin@north.example', password: 'north-Admin-Pass-1' },
  user: { email: 'east@north.example', password: 'north-East-Pass-1' },
};

/**
 * A row the bench asks: its name, path and headers. A `floor` row (FLOOR_ROWS) is not one of issue 45's reads
 * but what any read costs at least on this host (answered 404, not judged against a target): what the small
 * rows' ratios are read against (docs/benchmarks.md#reads-at-scale).
 */
export interface ReadRow { endpoint: string; path: string; headers?: Record<string, string>; floor?: true }

/** What the rows are asked through: the app in-process (Hono's `request`) or a server over HTTP (storage-compare.ts). */
export interface Requester { request(path: string, init?: RequestInit): Response | Promise<Response> }

/** The read API both benches ask, on `pool`, with the benches' token secret. */
export const readApp = (pool: pg.Pool): Hono => createApp({ readiness: {}, pool, jwtSecret: new TextEncoder().encode('bench-secret-bench-secret-bench-secret!!') });

/** A row's request headers for `token`: its own, with the placeholder 'ETAG' replaced by the map's current ETag. */
export async function rowHeaders(app: Requester, row: ReadRow, token: string): Promise<Record<string, string>> {
  const headers: Record<string, string> = { authorization: `Bearer ${token}`, ...row.headers };
  if (headers['if-none-match']) headers['if-none-match'] = (await app.request(row.path, { headers: { authorization: headers.authorization! } })).headers.get('etag')!;
  return headers;
}

/** An access token per caller, from the demo organisation's logins (support/reference-data.ts). */
export async function callerTokens(app: Requester): Promise<Record<Caller, string>> {
  const token = async (c: Caller) => {
    const res = await app.request('/api/auth/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(LOGINS[c]) });
    return ((await res.json()) as { accessToken: string }).accessToken;
  };
  return { admin: await token('admin'), user: await token('user') };
}

/**
 * The rows, for the generated devices over the months `span`: one device in the group
 * user's reach (so both callers ask for the same one) and a week in the middle month.
 */
export async function readRows(app: Requester, pool: pg.Pool, { span, adminToken }: { span: readonly string[]; adminToken: string }): Promise<ReadRow[]> {
  const { rows } = await pool.query<{ imei: string }>(`select d."IMEINumber" as imei from device_information d join group_device_links g on g."DeviceID" = d."DeviceID"
    where g."GroupID" = 'north-east' and d."IMEINumber" like $1 || '%' order by d."IMEINumber" limit 1`, [PREFIX]);
  const device = rows[0]!.imei;
  const mid = monthBounds(span[Math.floor(span.length / 2)]!).fromMs;
  const day = (t: number) => new Date(t).toISOString().slice(0, 10).replaceAll('-', '');
  const week = `from=${day(mid)}&to=${day(mid + 6 * 86_400_000)}`;
  // The keyset form of the deep pages (api/device-records/keyset.ts): the `next` of the page before, as the admin reads it.
  const after = async (path: string) => {
    const res = await app.request(path, { headers: { authorization: `Bearer ${adminToken}` } });
    return encodeURIComponent(String(((await res.json()) as { next: string | null }).next));
  };
  // Rows with headers: a browser asks for gzip, and a map that polls sends back the ETag it holds ('ETAG' is
  // replaced by the current one before the row is measured).
  return [
    { endpoint: 'data-log first page', path: '/device-records/data-log' },
    // A deep page: 10,000 rows skipped (page 2,000 skips 100,000, about 20 ms of one core each: 200 of
    // them a second is more than two cores, so that row would measure the queue, not the page).
    { endpoint: 'data-log page 200', path: '/device-records/data-log?page=200' },
    { endpoint: 'data-log 7 days', path: `/device-records/data-log?${week}` },
    { endpoint: 'data-log 7 days page 100', path: `/device-records/data-log?${week}&page=100` },
    { endpoint: 'data-log after 10,000 rows (keyset)', path: `/device-records/data-log?after=${await after('/device-records/data-log?page=199')}` },
    { endpoint: 'data-log 7 days after 5,000 rows (keyset)', path: `/device-records/data-log?${week}&after=${await after(`/device-records/data-log?${week}&page=99`)}` },
    { endpoint: 'events (one device)', path: `/device-records/device-information/events/${device}` },
    { endpoint: 'events (one device, 7 days)', path: `/device-records/device-information/events/${device}?${week}` },
    { endpoint: 'critical-data', path: '/device-records/critical-data' },
    { endpoint: 'critical-data 7 days', path: `/device-records/critical-data?${week}` },
    { endpoint: 'load-history (one device)', path: `/device-records/device-information/load-history/${device}` },
    { endpoint: 'load-history (one device, 7 days)', path: `/device-records/device-information/load-history/${device}?${week}` },
    { endpoint: 'device-summary', path: '/device-records/device-summary' },
    { endpoint: 'map-data', path: '/device-records/map-data' },
    { endpoint: 'map-data (gzip)', path: '/device-records/map-data', headers: { 'accept-encoding': 'gzip' } },
    { endpoint: 'map-data (poll, If-None-Match)', path: '/device-records/map-data', headers: { 'if-none-match': 'ETAG' } },
  ];
}

/**
 * The floor rows (storage-compare.ts asks them after readRows'): a signed-in request answered without SQL (an IMEI
 * that cannot be one is refused before any), and one answered by a single indexed statement (an IMEI nobody
 * registered: the reach check finds no device).
 */
export const FLOOR_ROWS: readonly ReadRow[] = [
  { endpoint: 'floor: no statement (404, not an IMEI)', path: `/device-records/device-information/events/${IMPLAUSIBLE_IMEI}`, floor: true },
  { endpoint: 'floor: one statement (404, unknown IMEI)', path: `/device-records/device-information/events/${PREFIX}99999999`, floor: true },
];
