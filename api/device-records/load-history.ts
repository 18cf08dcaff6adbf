// /device-records/device-information/load-history/<imei>: device currents (spec 2.4), `from` / `to` on
// PacketTimestamp. (IMEINumber, PacketTimestamp) is the primary key, so PacketTimestamp alone is unique here.
import { calendarDayRange } from '../../domain/calendar-days.js';
import { num, type FieldTable } from './fields.js';
import { pageJson, type ReadEndpoint } from './endpoint.js';
import { displayTime, presentContext, type PresentContext } from './present.js';
import { numberText, packedSelect } from './packed-numbers.js';
import { plain, rowWriter } from './row-json.js';
import { deviceInReach, historyConditions } from './reach.js';
import { isDefaultOrder } from './list-params.js';
import { filterConditions, orderBy, rangeMarkers, SqlParams, whereClause } from './sql.js';
import { deviceTotal } from './totals.js';

export const HOURLY_COLUMNS = Array.from({ length: 24 }, (_, h) => `AverageCurrentH${h}`);
export const CURRENTS_COLUMNS = ['PacketTimestamp', 'IMEINumber', 'PeakCurrent', 'PeakCurrentTimestamp', ...HOURLY_COLUMNS, 'CurrentName'];
/** The double precision columns of CURRENTS_COLUMNS, read packed (packed-numbers.ts; the schema's types: test/integration/api/packed-numbers.test.ts). */
export const CURRENTS_FLOAT8_COLUMNS: readonly string[] = ['PeakCurrent', ...HOURLY_COLUMNS];
/** CURRENTS_COLUMNS of `c`, its numbers packed. */
const SELECT = packedSelect(CURRENTS_COLUMNS.map((c) => ({ sql: `c."${c}"`, float8: CURRENTS_FLOAT8_COLUMNS.includes(c) })));

const SORTABLE: FieldTable = { PacketTimestamp: num('c."PacketTimestamp"'), PeakCurrent: num('c."PeakCurrent"') };
const FILTERABLE: FieldTable = { PeakCurrent: num('c."PeakCurrent"') };
const DEFAULT_SORT = [{ field: 'PacketTimestamp', order: 'desc' }] as const;
const TIE_BREAKER = ['c."PacketTimestamp" desc'];
/**
 * Each device's newest currents that device_currents_newest always holds (all of them when it has fewer): migration
 * 0057's fl_currents_newest_kept(), which test/integration/storage/newest-currents.test.ts holds this to.
 */
export const NEWEST_CURRENTS_KEPT = 100;
/** Each row of CURRENTS_COLUMNS as unpacked, its two timestamps in the caller's zone, its numbers as Postgres wrote them (row-json.ts). */
const WRITE = rowWriter<PresentContext>(CURRENTS_COLUMNS.map((c, i) => [c,
  c === 'PacketTimestamp' || c === 'PeakCurrentTimestamp' ? (row, ctx) => displayTime(row[i], ctx) : CURRENTS_FLOAT8_COLUMNS.includes(c) ? numberText(i) : plain(i)] as const));

export const loadHistory: ReadEndpoint = {
  path: '/device-information/load-history/:imei',
  summary: 'Load history (device currents) of one device',
  description: 'Paginated device currents of one IMEI in the caller\'s reach (404 otherwise): peak current and the 24 hourly averages AverageCurrentH0..H23 per check-in.',
  params: { accepts: ['page', 'limit', 'from', 'to', 'sortBy', 'filterBy'], sortable: SORTABLE, filterable: FILTERABLE },
  defaultSort: DEFAULT_SORT, rangeField: 'PacketTimestamp', schema: 'LoadHistory', shape: 'paginated',
  async run(deps, caller, q, imei) {
    const { pool, codeStrings } = deps;
    const reach = await deviceInReach(pool, caller, imei!);
    const p = new SqlParams();
    const range = calendarDayRange(q.from, q.to, caller.timeZone);
    const inRange = rangeMarkers('c."PacketTimestamp"', range.fromMs, range.untilMs);
    const conditions = [
      `c."IMEINumber" = ${p.add(imei)}::text`,
      ...historyConditions('c."PacketTimestamp"', reach),
      ...inRange.conditions,
      ...filterConditions(q.filters, FILTERABLE, { codeStrings }, p),
    ];
    const ctx = presentContext(caller, codeStrings);
    const total = deviceTotal(q, reach, 'currents');
    // A page within the device's newest rows, in the default order, where the counter is the total (unranged,
    // unfiltered, a device that never moved), is read from the rows the pipeline keeps (migration 0057): one index
    // range, where device_currents descends every partition's index (docs/decisions.md#a-devices-newest-rows-kept).
    const newest = total !== undefined && isDefaultOrder(q.sort, DEFAULT_SORT) && (q.page + 1) * q.limit <= NEWEST_CURRENTS_KEPT;
    const table = newest ? 'device_currents_newest' : 'device_currents';
    return pageJson(deps, p, { selectList: SELECT.selectList, unpack: SELECT.unpack, fromWhere: `from ${table} c ${whereClause(conditions)}`, order: orderBy(q.sort, SORTABLE, DEFAULT_SORT, TIE_BREAKER), total, range: inRange.instants }, q, WRITE, ctx);
  },
};
