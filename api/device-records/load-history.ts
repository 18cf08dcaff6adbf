// /device-records/device-information/load-history/<imei>: device currents (spec 2.4), `from` / `to` on
// PacketTimestamp. (IMEINumber, PacketTimestamp) is the primary key, so PacketTimestamp alone is unique here.
import { calendarDayRange } from '../../domain/calendar-days.js';
import { num, type FieldTable } from './fields.js';
import { pageJson, type ReadEndpoint } from './endpoint.js';
import { displayTime, presentContext, type PresentContext } from './present.js';
import { plain, rowWriter } from './row-json.js';
import { deviceInReach, historyConditions } from './reach.js';
import { deviceRangeMarkers, filterConditions, orderBy, rangeConditions, rangedFirstPage, SqlParams, whereClause } from './sql.js';
import { deviceTotal } from './totals.js';

export const HOURLY_COLUMNS = Array.from({ length: 24 }, (_, h) => `AverageCurrentH${h}`);
export const CURRENTS_COLUMNS = ['PacketTimestamp', 'IMEINumber', 'PeakCurrent', 'PeakCurrentTimestamp', ...HOURLY_COLUMNS, 'CurrentName'];

/** The check-in instant, the partition key. */
const AT = 'c."PacketTimestamp"';
const SORTABLE: FieldTable = { PacketTimestamp: num(AT), PeakCurrent: num('c."PeakCurrent"') };
const FILTERABLE: FieldTable = { PeakCurrent: num('c."PeakCurrent"') };
const DEFAULT_SORT = [{ field: 'PacketTimestamp', order: 'desc' }] as const;
const TIE_BREAKER = ['c."PacketTimestamp" desc'];
/** Each row of CURRENTS_COLUMNS as selected, its two timestamps in the caller's zone (row-json.ts). */
const WRITE = rowWriter<PresentContext>(CURRENTS_COLUMNS.map((c, i) => [c, c === 'PacketTimestamp' || c === 'PeakCurrentTimestamp' ? (row, ctx) => displayTime(row[i], ctx) : plain(i)] as const));

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
    const spelled = rangeConditions(AT, range.fromMs, range.untilMs);
    const device = { column: 'c."IMEINumber"', value: `${p.add(imei)}::text` };
    // A day range's first page is prepared, its instants values (sql.ts deviceRangeMarkers).
    const marked = rangedFirstPage(q, DEFAULT_SORT) && range.fromMs !== null && range.untilMs !== null
      ? deviceRangeMarkers(device, AT, range.fromMs, range.untilMs) : undefined;
    // The device's rows, from its move into the organisation on.
    const ofDevice = [`${device.column} = ${device.value}`, ...historyConditions(AT, reach)];
    const filters = filterConditions(q.filters, FILTERABLE, { codeStrings }, p);
    const where = (inRange: readonly string[]) => `from device_currents c ${whereClause([...ofDevice, ...inRange, ...filters])}`;
    const fromWhere = where(marked?.conditions ?? spelled);
    // The total's range stays in its text, as the data-log's does: a generic count of a range counts slower.
    const countParts = { parts: [where(spelled)], values: [...p.values] };
    const ctx = presentContext(caller, codeStrings);
    const select = CURRENTS_COLUMNS.map((c) => `c."${c}"`).join(', ');
    const total = deviceTotal(q, reach, 'currents');
    return pageJson(deps, p, { selectList: select, fromWhere, order: orderBy(q.sort, SORTABLE, DEFAULT_SORT, TIE_BREAKER), countParts, total, ...(marked ? { range: marked.instants } : {}) }, q, WRITE, ctx);
  },
};
