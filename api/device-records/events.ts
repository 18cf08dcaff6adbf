// /device-records/device-information/events/<imei>: the device's events of both tables (spec 2.3: standard
// and DM1), one shape with `EventTable` saying which, spec 3.4 applied; `from` / `to` on EventTimestamp.
import { calendarDayRange, type InstantRange } from '../../domain/calendar-days.js';
import { FAULT_SHIFT_MS } from '../../domain/fault-shift.js';
import { eventType, num, text, type FieldTable } from './fields.js';
import { PAGE_CUT, pageJson, type ReadEndpoint } from './endpoint.js';
import { EVENT_COLUMNS, eventFields, presentContext } from './present.js';
import { columnIndex, rowWriter } from './row-json.js';
import { deviceInReach, historyConditions } from './reach.js';
import { isDefaultOrder } from './list-params.js';
import { filterConditions, orderBy, rangeMarkers, SqlParams, whereClause } from './sql.js';
import { deviceTotal } from './totals.js';

const SORTABLE: FieldTable = {
  EventTimestamp: num('ev."EventTimestamp"'), EventID: num('ev."EventID"'), EventType: text('ev."EventType"'), PacketTimestamp: num('ev."PacketTimestamp"'),
};
const FILTERABLE: FieldTable = {
  EventType: eventType('ev."EventType"'), EventID: num('ev."EventID"'), EventTable: text('ev."EventTable"'),
};
const DEFAULT_SORT = [{ field: 'EventTimestamp', order: 'desc' }] as const;
// Event_Record_ID is unique per table, so the pair is the unique tie-breaker.
const TIE_BREAKER = ['ev."EventTable"', 'ev."Event_Record_ID" desc'];
// An event's key: its table, its id there and the partition key (the table's primary key beside the constant).
const KEY = ['EventTable', 'Event_Record_ID', 'ReportedEventTimestamp'] as const;
// Each event as presentEventRow shows it, written from the selected EVENT_COLUMNS (row-json.ts).
const WRITE = rowWriter(eventFields(columnIndex(EVENT_COLUMNS)));

/** Each table's events of one IMEI as a relation with EVENT_COLUMNS (to be named `ev`); `imei` is the IMEI placeholder. */
function tablesOf(imei: string): string[] {
  return [
    `(select 'standard'::text as "EventTable", e."Event_Record_ID", e."EventID", e."EventTimestamp", e."EventType", e."PrefaultCurrent",
             e."FaultCurrent", e."RecoverCurrent", null::text as "PhaseAEvent", null::text as "PhaseBEvent", null::text as "PhaseCEvent",
             e."PacketTimestamp", e."IMEINumber", e."DeviceRecordID", e."ReportedEventTimestamp"
        from event_records e where e."IMEINumber" = ${imei})`,
    `(select 'dm1'::text as "EventTable", e."Event_Record_ID", e."EventID", e."EventTimestamp", e."EventType", null::double precision as "PrefaultCurrent",
             null::double precision as "FaultCurrent", null::double precision as "RecoverCurrent", e."PhaseAEvent", e."PhaseBEvent", e."PhaseCEvent",
             e."PacketTimestamp", e."IMEINumber", e."DeviceRecordID", e."ReportedEventTimestamp"
        from dm1_event_records e where e."IMEINumber" = ${imei})`,
  ];
}

/**
 * Each device's newest events that device_events_newest always holds (all of them when it has fewer): migration
 * 0058's fl_events_newest_kept(), which test/integration/storage/newest-events.test.ts holds this to.
 */
export const NEWEST_EVENTS_KEPT = 100;

/** An event table's day range as conditions holding markers, and the markers' instants (eventRange). */
export interface EventRange { stored: string[]; reported: string[]; instants: Record<string, string> }

/**
 * An event table's day range as markers (sql.ts rangeMarkers): `stored` on EventTimestamp, and `reported`, the same
 * range on the partition key, ReportedEventTimestamp, so only the months in range are read. A stored EventTimestamp
 * is the reported one, or FAULT_SHIFT_MS before it (spec 3.4): an event in [from, until) was reported in
 * [from, until + FAULT_SHIFT_MS). `instants`: both's.
 */
export function eventRange(alias: string, range: InstantRange): EventRange {
  const stored = rangeMarkers(`${alias}."EventTimestamp"`, range.fromMs, range.untilMs);
  const reported = rangeMarkers(`${alias}."ReportedEventTimestamp"`, range.fromMs, range.untilMs === null ? null : range.untilMs + FAULT_SHIFT_MS, '$reported');
  return { stored: stored.conditions, reported: reported.conditions, instants: { ...stored.instants, ...reported.instants } };
}

export const deviceEvents: ReadEndpoint = {
  path: '/device-information/events/:imei',
  summary: 'Events of one device',
  description: 'Paginated events of one IMEI in the caller\'s reach (404 otherwise), standard and DM1 tables together (EventTable), with the spec 3.4 fields PermanentFaultResetCurrentThreshold and PostEventRef.',
  params: { accepts: ['page', 'limit', 'from', 'to', 'sortBy', 'filterBy'], sortable: SORTABLE, filterable: FILTERABLE },
  defaultSort: DEFAULT_SORT, rangeField: 'EventTimestamp', schema: 'Event', shape: 'paginated',
  async run(deps, caller, q, imei) {
    const { pool, codeStrings } = deps;
    const reach = await deviceInReach(pool, caller, imei!);
    const p = new SqlParams();
    const imeiAt = p.add(imei);
    const sources = tablesOf(`${imeiAt}::text`);
    const range = calendarDayRange(q.from, q.to, caller.timeZone);
    // The day range, on the stored and on the reported instant (the partition key): the walk's and the row lookup's.
    const inRange = eventRange('ev', range);
    const within = [...inRange.stored, ...inRange.reported];
    const conditions = [
      ...historyConditions('ev."PacketTimestamp"', reach),
      ...within,
      ...filterConditions(q.filters, FILTERABLE, { codeStrings }, p),
    ];
    const ctx = presentContext(caller, codeStrings);
    const select = EVENT_COLUMNS.map((c) => `ev."${c}"`).join(', ');
    const order = orderBy(q.sort, SORTABLE, DEFAULT_SORT, TIE_BREAKER);
    // Each table is sorted and cut to the page's offset + limit rows on its own, then the survivors merged (as
    // critical-data does): in a branch EventTable is a constant, so the default order is the index's
    // (IMEINumber, EventTimestamp desc, Event_Record_ID desc) and the walk stops at the page; sorting the
    // union of both tables read the device's whole history per request (docs/decisions.md#reads-bounded-by-the-answer).
    const top = PAGE_CUT.top;
    // A first page reads whole rows at once in the device's index order (migration 0055 carries every column the
    // list presents and filters on, so each branch's walk is index-only and stops at the page), or with a day
    // range (planned per request with the range's values, so the planner takes the device's index for what it is:
    // docs/decisions.md#small-reads-planned-once). Reading keys first and each page row by key after put every
    // partition of both tables in the plan twice (docs/decisions.md#a-devices-events-read-whole). Deeper pages,
    // and a first page in another order (which sorts the device's events), find the page's keys first and read
    // the rows by key after (pageJson's deferred join): they skip their offset, or sort, by keys alone.
    const direct = q.page === 0 && (range.fromMs !== null || range.untilMs !== null || isDefaultOrder(q.sort, DEFAULT_SORT));
    // What each branch's walk reads: whole rows, or the key and the columns the order reads.
    const walked = direct ? select : [...new Set([...KEY, ...(q.sort.length ? q.sort : DEFAULT_SORT).map((k) => k.field)])].map((c) => `ev."${c}"`).join(', ');
    const branches = sources.map((source) => `(select ${walked} from ${source} ev ${whereClause(conditions)} order by ${order} limit ${top})`);
    const countParts = { parts: sources.map((source) => `from ${source} ev ${whereClause(conditions)}`), values: [...p.values] };
    const deferred = direct ? undefined : { table: `(${sources.join(' union all ')})`, alias: 'ev', key: KEY, within };
    // Unfiltered and unranged, the device's counter is the total: counting its events descended every month of both tables.
    const total = deviceTotal(q, reach, 'events');
    // A page within the device's newest events, in the default order, where the counter is the total (unranged,
    // unfiltered, a device that never moved), is read from the rows the pipeline keeps of both tables together
    // (migration 0058): one index range, where each table's walk enters every month (docs/decisions.md#a-devices-newest-rows-kept).
    if (total !== undefined && isDefaultOrder(q.sort, DEFAULT_SORT) && (q.page + 1) * q.limit <= NEWEST_EVENTS_KEPT) {
      return pageJson(deps, p, { selectList: select, fromWhere: `from device_events_newest ev where ev."IMEINumber" = ${imeiAt}::text`, order, total }, q, WRITE, ctx);
    }
    return pageJson(deps, p, { selectList: select, fromWhere: `from (${branches.join(' union all ')}) ev`, order, countParts, total, range: inRange.instants, ...(deferred ? { deferred } : {}) }, q, WRITE, ctx);
  },
};
