// GET /api/reliability/export (issue 43 item 3; docs/reliability-export.md): one row per incident of the
// caller's reach (the same incidents as GET /api/incidents: api/incidents/routes.ts `visible`), as CSV or
// Parquet, streamed: rows are read in keyset batches and each batch leaves before the next is read.
// A masked organisation's rows carry no class (export-columns.ts): the API's mask policy reads text answers
// only, and a Parquet file is not one; the CSV it masks line by line as it passes (`routeMasksItself`), so a
// masked organisation's export streams like any other.
import { Hono } from 'hono';
import type { MiddlewareHandler } from 'hono';
import type pg from 'pg';
import { log } from '../../config/log.js';
import { calendarDayRange } from '../../domain/calendar-days.js';
import { ONGOING_FAULT } from '../../domain/ongoing-fault-codes.js';
import { toCsv } from '../../plumbing/csv.js';
import type { AuthEnv, Caller } from '../auth/caller.js';
import { dayParameter } from '../device-records/list-params.js';
import { SqlParams } from '../device-records/sql.js';
import { acceptOnly, badParameter } from '../errors.js';
import { routeMasksItself } from '../fault-mask-policy.js';
import type { FaultedSection } from '../../domain/faulted-section.js';
import { tripInReach, visible } from '../incidents/routes.js';
import { sectionPresenter } from '../incidents/section-reach.js';
import { csvCells, EXPORT_COLUMNS, parquetCells, type ExportSource } from './export-columns.js';
import { parquetChunks } from './parquet-stream.js';

export const RELIABILITY_EXPORT_PATH = '/api/reliability/export';
export const EXPORT_FORMATS = ['csv', 'parquet'] as const;
type Format = (typeof EXPORT_FORMATS)[number];
/** Rows per read and per Parquet row group: a batch is a few hundred kB however long the period. */
export const EXPORT_BATCH = 1_000;

const CONTENT_TYPES: Record<Format, string> = { csv: 'text/csv; charset=utf-8', parquet: 'application/vnd.apache.parquet' };

export interface Window { fromMs: number | null; untilMs: number | null }

/**
 * Where a batch ends: the next batch starts after this incident in (first trip, id) order. The first trip as
 * Postgres wrote it (text): a JavaScript Date drops the microseconds, and the keyset would then read the last
 * row again.
 */
interface After { firstTripAt: string; id: string }

/**
 * The statement of one batch: the incidents of the window in the caller's reach after `after`, in first trip
 * order (ties by id), `size` of them. The keyset walks incidents ("OrganizationID", first_trip_at, id)
 * (migration 0032) from the window's start: a narrow window reads its own incidents, not the organisation's
 * history (review M6, test/integration/reliability/read-plans.test.ts).
 */
export function exportBatchQuery(caller: Caller, window: Window, after: After | null, size = EXPORT_BATCH): { text: string; values: unknown[] } {
  const p = new SqlParams();
  const where = [visible(caller, p)];
  if (after !== null) where.push(`(i.first_trip_at, i.id) > (${p.add(after.firstTripAt)}::timestamptz, ${p.add(after.id)}::bigint)`);
  if (window.fromMs !== null) where.push(`i.first_trip_at >= ${p.add(new Date(window.fromMs))}::timestamptz`);
  if (window.untilMs !== null) where.push(`i.first_trip_at < ${p.add(new Date(window.untilMs))}::timestamptz`);
  const clean = p.add([ONGOING_FAULT.NONE, ONGOING_FAULT.CURRENT_RESET]);
  const text = `select i.id, i.first_trip_at::text as trip_key, i."PowerLineID", pl.name as "powerLineName", i.status, i.kind, i.first_trip_at, i.last_trip_at, i.sections,
              array(select x."IMEINumber" from incident_devices x join device_information d on d."IMEINumber" = x."IMEINumber"
                     where x.incident_id = i.id and ${tripInReach(caller, p)} order by x.tripped_at, x."IMEINumber") as indicators,
              -- Restoration by device time (docs/reliability-export.md, column restoredAt). A masked organisation
              -- gets the check-in rule for every kind: restoredAt = lastTripAt would name the momentary ones.
              case when i.restored_at is null then null
                   ${caller.maskFaultDetails ? '' : "when i.kind = 'momentary' then i.last_trip_at"}
                   else (select max((select min(r."date") from device_records r
                                      where r."IMEINumber" = x."IMEINumber" and r."date" > x.tripped_at and r."ActualOngoingFault" = any(${clean}::int[])))
                           from incident_devices x where x.incident_id = i.id) end as restored_device_at,
              -- Customers of the faulted sections where the import gave every one (docs/reliability-export.md, sectionCustomers).
              case when jsonb_array_length(i.sections) = 0 then null
                   else (select case when bool_or(d."SectionCustomers" is null) then null else sum(d."SectionCustomers")::int end
                           from jsonb_array_elements(i.sections) s left join device_information d on d."IMEINumber" = s->'from'->>'imei') end as section_customers,
              c.cause, c.major_event, c.note as cause_note, c.set_by as cause_set_by, c.set_at as cause_set_at
         from incidents i join power_lines pl on pl."Id" = i."PowerLineID"
         left join lateral (select cause, major_event, note, set_by, set_at from incident_cause_changes k
                             where k.incident_id = i.id order by k.id desc limit 1) c on true
        where ${where.join(' and ')}
        order by i.first_trip_at, i.id limit ${p.add(size)}::int`;
  return { text, values: p.values };
}

/** The incidents of the window in the caller's reach, in first trip order, `size` at a time. */
async function* incidentBatches(pool: pg.Pool, caller: Caller, window: Window, size = EXPORT_BATCH): AsyncGenerator<ExportSource[]> {
  let after: After | null = null;
  for (;;) {
    const q = exportBatchQuery(caller, window, after, size);
    const { rows } = await pool.query<Omit<ExportSource, 'sections'> & { trip_key: string; sections: FaultedSection[] }>(q.text, q.values);
    // The sections' labels name only indicators in the caller's reach, as GET /api/incidents shows them.
    const show = await sectionPresenter(pool, caller, rows.map((r) => r.sections));
    if (rows.length) yield rows.map((r) => ({ ...r, sections: show(r.sections) }));
    if (rows.length < size) return;
    const last = rows[rows.length - 1]!;
    after = { firstTripAt: last.trip_key, id: last.id };
  }
}

async function* csvChunks(batches: AsyncIterable<ExportSource[]>, masked: boolean): AsyncGenerator<Uint8Array> {
  const text = new TextEncoder();
  yield text.encode(toCsv([EXPORT_COLUMNS.map((c) => c.name)]));
  for await (const rows of batches) yield text.encode(toCsv(rows.map((r) => csvCells(r, masked))));
}

async function* parquetBatches(batches: AsyncIterable<ExportSource[]>, masked: boolean) {
  for await (const rows of batches) yield rows.map((r) => parquetCells(r, masked));
}

/** A byte stream pulled chunk by chunk: the next batch is read only when the client took the last one. */
function streamOf(chunks: AsyncGenerator<Uint8Array>, path: string): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = await chunks.next();
        if (next.done) controller.close();
        else controller.enqueue(next.value);
      } catch (err) {
        // Headers are sent: the client sees a cut answer (no valid Parquet footer, a short CSV), never a partial file passed as whole.
        log.error({ err: { name: (err as Error).name, message: (err as Error).message }, path }, 'reliability export failed while streaming');
        controller.error(err);
      }
    },
    async cancel() { await chunks.return(undefined); },
  }, { highWaterMark: 1 });
}

export function reliabilityExportRoutes({ pool, auth }: { pool: pg.Pool; auth: MiddlewareHandler<AuthEnv> }): Hono<AuthEnv> {
  const app = new Hono<AuthEnv>();
  app.get(RELIABILITY_EXPORT_PATH, auth, (c) => {
    acceptOnly(c.req.queries(), ['format', 'from', 'to'], { repeatable: false });
    const format = (c.req.query('format') ?? 'csv') as Format;
    if (!EXPORT_FORMATS.includes(format)) throw badParameter('format', `must be one of ${EXPORT_FORMATS.join(', ')}.`);
    const from = dayParameter('from', c.req.query('from'));
    const to = dayParameter('to', c.req.query('to'));
    if (from && to && from.since(to).sign > 0) throw badParameter('from', 'is after "to".', { from: from.toString(), to: to.toString() });
    const caller = c.get('caller');
    const window = calendarDayRange(from, to, caller.timeZone);
    const batches = incidentBatches(pool, caller, window);
    const masked = caller.maskFaultDetails;
    const name = `incidents-${from?.toString() ?? 'start'}-${to?.toString() ?? 'now'}.${format}`;
    const chunks = format === 'csv'
      ? csvChunks(batches, masked)
      : parquetChunks(EXPORT_COLUMNS, parquetBatches(batches, masked), { 'faultline.columns': 'docs/reliability-export.md', 'faultline.from': from?.toString() ?? '', 'faultline.to': to?.toString() ?? '' });
    routeMasksItself(c);
    return c.body(streamOf(chunks, c.req.path), 200, {
      'content-type': CONTENT_TYPES[format], 'content-disposition': `attachment; filename="${name}"`, 'cache-control': 'no-store',
    });
  });
  return app;
}
