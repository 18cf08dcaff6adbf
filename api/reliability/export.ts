// GET /api/reliability/export (issue 43 item 3; docs/reliability-export.md): one row per incident of the
// caller's reach (the same incidents as GET /api/incidents: api/incidents/routes.ts `visible`), as CSV or
// Parquet, streamed: rows are read in keyset batches (export-store.ts) and each batch leaves before the next is read.
// A masked organisation's rows carry no class (export-columns.ts): the API's mask policy reads text answers
// only, and a Parquet file is not one; the CSV it masks line by line as it passes (`routeMasksItself`), so a
// masked organisation's export streams like any other.
import { Hono } from 'hono';
import type { MiddlewareHandler } from 'hono';
import type pg from 'pg';
import { log } from '../../config/log.js';
import { calendarDayRange } from '../../domain/calendar-days.js';
import { toCsv } from '../../plumbing/csv.js';
import type { AuthEnv } from '../auth/caller.js';
import { dayParameter } from '../device-records/list-params.js';
import { acceptOnly, badParameter } from '../errors.js';
import { routeMasksItself } from '../fault-mask-policy.js';
import { csvCells, EXPORT_COLUMNS, parquetCells, type ExportSource } from './export-columns.js';
import { getRoute } from '../read-route.js';
import { EXPORT_FORMATS, GET_EXPORT } from './endpoints.js';
import { incidentBatches } from './export-store.js';
import { parquetChunks } from './parquet-stream.js';

export { EXPORT_BATCH, exportBatchQuery } from './export-store.js';
type Format = (typeof EXPORT_FORMATS)[number];
const CONTENT_TYPES: Record<Format, string> = { csv: 'text/csv; charset=utf-8', parquet: 'application/vnd.apache.parquet' };

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
  getRoute(app, GET_EXPORT, [auth], (c) => {
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
