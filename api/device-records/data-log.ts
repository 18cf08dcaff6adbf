// /device-records/data-log (every reachable device) and /device-records/device-information/data-log/<imei>:
// paginated device records (spec 2.2), `from` / `to` on `date`.
import { calendarDayRange } from '../../domain/calendar-days.js';
import { fault, num, text, type FieldTable } from './fields.js';
import { pageJson, type PageSql, type ReadEndpoint } from './endpoint.js';
import type { Caller } from '../auth/caller.js';
import { packedRecordFields, packedRecordSelect, presentContext, RECORD_COLUMNS } from './present.js';
import { columnIndex, rowWriter } from './row-json.js';
import { deviceInReach, historyConditions, lateralReach, movedDevices, movedSinceCondition, pageReach, PROBE_JOIN, reachCondition, recordReach } from './reach.js';
import { filterConditions, orderBy, rangedFirstPage, rangeMarkers, SqlParams, whereClause } from './sql.js';
import { counterTotal, countersAnswer, deviceTotal } from './totals.js';
import { cursorInstantMs, cursorOf, cursorParams, type KeyColumn } from './keyset.js';
import { isDefaultOrder, type ListQuery } from './list-params.js';
import { newestWindow, type NewestWindow } from './newest-window.js';

const SORTABLE: FieldTable = {
  date: num('r."date"'), RecordID: num('r."RecordID"'), IMEINumber: text('r."IMEINumber"'), CurrentName: text('r."CurrentName"'),
  model: text('r."model"'), AverageCurrent1m: num('r."AverageCurrent1m"'), BatteryMCU: num('r."BatteryMCU"'),
  Temperature: num('r."Temperature"'), rssi: num('r."rssi"'),
};

const FILTERABLE: FieldTable = {
  IMEINumber: text('r."IMEINumber"'), CurrentName: text('r."CurrentName"'), model: text('r."model"'), version: text('r."version"'),
  Ongoing_fault: fault('r."Ongoing_fault"'), ActualOngoingFault: fault('r."ActualOngoingFault"'),
  State: { sql: 'r."State"', type: 'state' }, FaultType: { sql: 'r."FaultType"', type: 'fault-type' },
  BatteryOrLine: num('r."BatteryOrLine"'), AverageCurrent1m: num('r."AverageCurrent1m"'), BatteryMCU: num('r."BatteryMCU"'),
  Temperature: num('r."Temperature"'), rssi: num('r."rssi"'),
};

const PARAMS = { accepts: ['page', 'limit', 'from', 'to', 'sortBy', 'filterBy', 'after'], sortable: SORTABLE, filterable: FILTERABLE } as const;
const DEFAULT_SORT = [{ field: 'date', order: 'desc' }] as const;
// RecordID is the primary key: the unique tie-breaker of every order.
const TIE_BREAKER = ['r."RecordID" desc'];
// Page keys first, whole rows second (migration 0007 covers the default order and the reach check). The
// partition key goes with the id, so each row of the page is looked up in its own partition only.
const DEFERRED = { table: 'device_records', alias: 'r', key: ['RecordID', 'date'] } as const;
// The default order with its tie-breaker, as keyset pages (`after`) read on from it: migration 0007's index.
const KEYSET: readonly KeyColumn[] = [{ sql: 'r."date"', type: 'timestamptz' }, { sql: 'r."RecordID"', type: 'bigint' }];
// RECORD_COLUMNS of the page's rows `r`, their numbers packed (packed-numbers.ts), and each row as spec 2.2 shows
// it, written from them (row-json.ts).
const SELECT = packedRecordSelect('r');
const WRITE = rowWriter(packedRecordFields(columnIndex(RECORD_COLUMNS)));

/**
 * The page's own conditions, on `p`: the rows after `after`'s cursor in the default order (the plain bound on
 * date beside the row comparison lets the executor skip the months after the cursor), and for a list without
 * a day range in the default order, the newest-first window from the cursor's instant or now on the partition
 * key (newest-window.ts).
 */
function pageOnly(q: ListQuery, p: SqlParams, nowMs: number | null): { conditions: string[]; window?: NewestWindow; windowCondition: string[] } {
  const cursor = cursorOf(q, KEYSET, DEFAULT_SORT);
  const conditions: string[] = [];
  const cursorSlots: number[] = [];
  if (cursor !== null) {
    const [date, id] = cursorParams(cursor, KEYSET, p);
    cursorSlots.push(p.values.length - 2, p.values.length - 1);
    conditions.push(`r."date" <= ${date}`, `(r."date", r."RecordID") < (${date}, ${id})`);
  }
  if (nowMs === null) return { conditions, windowCondition: [] };
  const { condition, window } = newestWindow(q, DEFAULT_SORT, 'r."date"', cursor === null ? nowMs : cursorInstantMs(cursor[0]!), cursorSlots);
  return { conditions: [...conditions, ...condition], window, windowCondition: condition };
}

/**
 * `from` + `where` of the page (with its own conditions: pageOnly) and of its total (without: the total counts
 * the whole list), and the page's window if it has one.
 */
function pageAndCount(from: string, conditions: string[], q: ListQuery, p: SqlParams, nowMs: number | null) {
  const countParts = { parts: [`${from} ${whereClause(conditions)}`], values: [...p.values] };
  const own = pageOnly(q, p, nowMs);
  return { fromWhere: `${from} ${whereClause([...conditions, ...own.conditions])}`, countParts, window: own.window, windowCondition: own.windowCondition };
}

/** The total's parts, each device probed in either walk form (endpoint.ts counts at most COUNT_CAP rows): the set is the page statement's CTE, and a second one would cost a second hash. */
function countedByProbes(caller: Caller, listConditions: (on: SqlParams) => string[]): PageSql['countParts'] {
  const c = new SqlParams();
  return { parts: [`from device_records r ${PROBE_JOIN} ${whereClause([reachCondition(caller, c), ...listConditions(c)])}`], values: c.values };
}

export const dataLog: ReadEndpoint = {
  path: '/data-log',
  summary: 'Device records of every device in reach',
  description: 'Paginated device records (spec 2.2) of every device the caller reaches, newest first by default.',
  params: PARAMS, defaultSort: DEFAULT_SORT, rangeField: 'date', schema: 'DeviceRecord', shape: 'paginated',
  async run(deps, caller, q) {
    const { pool, codeStrings } = deps;
    const range = calendarDayRange(q.from, q.to, caller.timeZone);
    // The day range on the partition key, as markers (endpoint.ts statement sets them): a generic plan's values
    // where the page's plan does not depend on the range (docs/decisions.md#a-weeks-fleet-pages-prepared), the
    // values of a plan made per request where it does (a filter, another order, a deeper page).
    const rangeInValues = rangedFirstPage(q, DEFAULT_SORT);
    const marked = rangeMarkers('r."date"', range.fromMs, range.untilMs);
    const moved = await movedDevices(pool, caller);
    const listConditions = (on: SqlParams, inRange: string[]) => [
      ...movedSinceCondition(moved, on, 'r."IMEINumber"', 'r."date"'),
      ...inRange,
      ...filterConditions(q.filters, FILTERABLE, { codeStrings }, on),
    ];
    const ctx = presentContext(caller, codeStrings);
    const order = orderBy(q.sort, SORTABLE, DEFAULT_SORT, TIE_BREAKER);
    const count = countersAnswer(q) ? counterTotal('records', caller) : undefined;
    const p = new SqlParams();
    // A set of the devices in reach (reach.ts pageReach) only for the index walk of the default order (another order
    // sorts the whole window, where each device's probe is memoized anyway); a lateral probe where the range is in
    // the values, whose generic plan must not depend on how many rows the range holds.
    const reach = rangeInValues ? lateralReach(caller, p) : isDefaultOrder(q.sort, DEFAULT_SORT)
      ? await pageReach(pool, deps.reachSizes, caller, p, { skipped: q.page * q.limit, limit: q.limit, filtered: q.filters.length > 0 })
      : recordReach(caller, p, { visited: q.limit, reached: Infinity });
    // The walk's and the row lookup's range.
    const inRange = marked.conditions;
    const walk = pageAndCount(`from device_records r ${reach.join}`, [...reach.conditions, ...listConditions(p, inRange)], q, p, deps.now());
    const deferred = { ...DEFERRED, within: [...inRange, ...walk.windowCondition] };
    // The total is planned per request with its range (endpoint.ts): a generic plan counted a week 3-5x as long.
    const counted = countedByProbes(caller, (on) => listConditions(on, inRange));
    return pageJson(deps, p, { selectList: SELECT.selectList, unpack: SELECT.unpack, fromWhere: walk.fromWhere, order, count, countParts: counted, deferred, keyset: KEYSET, window: walk.window, range: marked.instants, ...(rangeInValues ? { rangeInGenericPlan: true } : {}), ...(reach.with ? { with: reach.with } : {}) }, q, WRITE, ctx);
  },
};

export const deviceDataLog: ReadEndpoint = {
  path: '/device-information/data-log/:imei',
  summary: 'Device records of one device',
  description: 'Paginated device records of one IMEI in the caller\'s reach (404 otherwise), newest first by default.',
  params: PARAMS, defaultSort: DEFAULT_SORT, rangeField: 'date', schema: 'DeviceRecord', shape: 'paginated',
  async run(deps, caller, q, imei) {
    const { pool, codeStrings } = deps;
    const reach = await deviceInReach(pool, caller, imei!);
    const p = new SqlParams();
    const range = calendarDayRange(q.from, q.to, caller.timeZone);
    const inRange = rangeMarkers('r."date"', range.fromMs, range.untilMs);
    const conditions = [
      `r."IMEINumber" = ${p.add(imei)}::text`,
      ...historyConditions('r."date"', reach),
      ...inRange.conditions,
      ...filterConditions(q.filters, FILTERABLE, { codeStrings }, p),
    ];
    const ctx = presentContext(caller, codeStrings);
    // No newest-first window for one device (null): a bound on `date` beside `IMEINumber = $1` made the generic plan
    // sort the device's whole window instead of walking its index to the page (docs/decisions.md#newest-first-windows).
    const { fromWhere, countParts } = pageAndCount('from device_records r', conditions, q, p, null);
    const order = orderBy(q.sort, SORTABLE, DEFAULT_SORT, TIE_BREAKER);
    // No `within` here: with the range inside the lookup, at the day cut each row's lookup probed every day of
    // the range (the plan-bound test: 18 -> 72 buffers for a week's keyset page, docs/decisions.md#totals-for-a-second).
    const total = deviceTotal(q, reach, 'records');
    return pageJson(deps, p, { selectList: SELECT.selectList, unpack: SELECT.unpack, fromWhere, order, countParts, total, deferred: DEFERRED, keyset: KEYSET, range: inRange.instants }, q, WRITE, ctx);
  },
};
