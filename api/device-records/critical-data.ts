// /device-records/critical-data: fault events of every reachable device (docs/decisions.md: EventType in
// PFault, TFault, SOTF, Fault Like, Fault <50, Overcurrent, FAULT_INITIAL, from both event tables) and the
// model-change alerts as EventType `Model Change`, joined with device name, place and power line.
// Each row carries the device's Ongoing_fault / ActualOngoingFault of the check-in that brought it (masked).
import type pg from 'pg';
import { integerLiteral } from '../../db/sql-literal.js';
import { calendarDayRange, type InstantRange } from '../../domain/calendar-days.js';
import { FAULT_EVENT_TYPES, sqlTypeList } from '../../domain/fault-events.js';
import { MODEL_CHANGE_EVENT_TYPE } from '../../domain/model-change-alert.js';
import type { Caller } from '../auth/caller.js';
import { eventType, fault, num, text, type FieldTable } from './fields.js';
import { PAGE_CUT, pageJson, type ReadDeps, type ReadEndpoint } from './endpoint.js';
import { prepared } from './prepared.js';
import { isDefaultOrder, type ListQuery } from './list-params.js';
import { displayFault, eventFields, presentContext } from './present.js';
import { columnIndex, plain, rowWriter, type JsonText } from './row-json.js';
import { movedDevices, movedSinceCondition, reachCondition, type MovedDevices } from './reach.js';
import { filterConditions, orderBy, SqlParams, whereClause } from './sql.js';
import { counterTotal, countersAnswer } from './totals.js';
import { eventRange, type EventRange } from './events.js';
import { FAULT_SHIFT_MS } from '../../domain/fault-shift.js';
import { badCursor, cursorInstant, cursorOf, type KeyColumn } from './keyset.js';
import type { ActiveDevice, CriticalWalk, SourceWalk } from './critical-walk.js';

// Spelled into the SQL text so the planner matches the partial indexes of migration 0004 (sqlTypeList).
const TYPES_SQL = sqlTypeList(FAULT_EVENT_TYPES);

// Sort and filter inside each source (c = the source row, d = its device, r = its check-in) ...
const SORTABLE: FieldTable = {
  EventTimestamp: num('c."EventTimestamp"'), EventType: text('c."EventType"'), IMEINumber: text('c."IMEINumber"'),
  Real_Name: text('d."Real_Name"'), PowerLineID: text('d."PowerLineID"'),
};
const FILTERABLE: FieldTable = {
  EventType: eventType('c."EventType"'), Source: text('c."Source"'), IMEINumber: text('c."IMEINumber"'), Real_Name: text('d."Real_Name"'),
  PowerLineID: text('d."PowerLineID"'), ActualOngoingFault: fault('r."ActualOngoingFault"'),
};
// ... and the same keys over the merged rows `u`.
const MERGED: FieldTable = Object.fromEntries(Object.entries(SORTABLE).map(([k, v]) => [k, { ...v, sql: `u."${k}"` }]));
const DEFAULT_SORT = [{ field: 'EventTimestamp', order: 'desc' }] as const;
// (Source, SourceID) is unique: each source's id is its table's primary key.
const TIE_BREAKER = ['c."Source"', 'c."SourceID" desc'];
const MERGED_TIE_BREAKER = ['u."Source"', 'u."SourceID" desc'];

/** The `Source` of each relation of sources(), in its order. */
const SOURCE_NAMES = ['event', 'dm1_event', 'model_change'] as const;
/** A ranged keyset page's cursor instant, as a marker (afterCursor). */
const CURSOR_AT = '$cursor_at';
const isRanged = (q: Pick<ListQuery, 'from' | 'to'>) => q.from !== null || q.to !== null;
const everySource = (walk: SourceWalk): CriticalWalk => SOURCE_NAMES.map(() => walk);
// The default order with its tie-breaker over the merged rows, as keyset pages (`after`) read on from it.
const KEYSET: readonly KeyColumn[] = [{ sql: 'u."EventTimestamp"', type: 'timestamptz' }, { sql: 'u."Source"', type: 'text' }, { sql: 'u."SourceID"', type: 'bigint' }];

/**
 * Per source (SOURCE_NAMES order), the rows after the cursor in the default order (EventTimestamp desc,
 * Source asc, SourceID desc). Source is one constant per source, so each becomes a condition its index
 * (EventTimestamp desc, id desc) starts its walk at: a later source takes the cursor's instant itself, an
 * earlier one only older instants, the cursor's own source the row comparison. The reported instant (the
 * partition key) is at most FAULT_SHIFT_MS after the stored one, which bounds the months read. Inside a day
 * range (a statement planned per request, endpoint.ts) the cursor's instant is a marker like the range's bounds
 * (CURSOR_AT; the shift a constant): in a generic plan, its placeholder was guessed a third of the range and the
 * rest of a week sorted for an admin's keyset page (docs/decisions.md#critical-data-walked-per-device).
 */
function afterCursor(q: ListQuery, p: SqlParams): string[][] {
  const cursor = cursorOf(q, KEYSET, DEFAULT_SORT);
  if (cursor === null) return SOURCE_NAMES.map(() => []);
  const cursorSource = cursor[1]!;
  if (!(SOURCE_NAMES as readonly string[]).includes(cursorSource)) throw badCursor();
  const at = isRanged(q) ? CURSOR_AT : `${p.add(cursor[0])}::timestamptz`;
  const id = `${p.add(cursor[2])}::bigint`;
  const reported = `c."ReportedEventTimestamp" < ${at} + ${integerLiteral(FAULT_SHIFT_MS + 1)} * interval '1 millisecond'`;
  return SOURCE_NAMES.map((name) => [
    name === cursorSource ? `(c."EventTimestamp", c."SourceID") < (${at}, ${id})`
      : name > cursorSource ? `c."EventTimestamp" <= ${at}` : `c."EventTimestamp" < ${at}`,
    reported,
  ]);
}

/** The three sources as `c`-shaped relations; `modelChange` is the placeholder of the alert's EventType. */
function sources(modelChange: string): string[] {
  return [
    `(select 'event'::text as "Source", e."Event_Record_ID" as "SourceID", e."EventID", e."EventTimestamp", e."EventType",
             e."PrefaultCurrent", e."FaultCurrent", e."RecoverCurrent", null::text as "PhaseAEvent", null::text as "PhaseBEvent",
             null::text as "PhaseCEvent", null::text as "oldModel", null::text as "newModel", e."PacketTimestamp", e."DeviceRecordID", e."IMEINumber",
             e."ReportedEventTimestamp"
        from event_records e where e."EventType" in ${TYPES_SQL}) c`,
    `(select 'dm1_event'::text as "Source", e."Event_Record_ID" as "SourceID", e."EventID", e."EventTimestamp", e."EventType",
             null::double precision as "PrefaultCurrent", null::double precision as "FaultCurrent", null::double precision as "RecoverCurrent",
             e."PhaseAEvent", e."PhaseBEvent", e."PhaseCEvent", null::text as "oldModel", null::text as "newModel", e."PacketTimestamp", e."DeviceRecordID", e."IMEINumber",
             e."ReportedEventTimestamp"
        from dm1_event_records e where e."EventType" in ${TYPES_SQL}) c`,
    `(select 'model_change'::text as "Source", a.id as "SourceID", null::bigint as "EventID", a."at" as "EventTimestamp", ${modelChange} as "EventType",
             null::double precision as "PrefaultCurrent", null::double precision as "FaultCurrent", null::double precision as "RecoverCurrent",
             null::text as "PhaseAEvent", null::text as "PhaseBEvent", null::text as "PhaseCEvent", a."oldModel", a."newModel", a."at" as "PacketTimestamp",
             a."DeviceRecordID", a."IMEINumber", a."at" as "ReportedEventTimestamp"
        from model_change_alerts a) c`,
  ];
}

const COLUMNS = `c."Source", c."SourceID", c."EventID", c."EventTimestamp", c."EventType", c."PrefaultCurrent", c."FaultCurrent",
  c."RecoverCurrent", c."PhaseAEvent", c."PhaseBEvent", c."PhaseCEvent", c."oldModel", c."newModel", c."PacketTimestamp",
  c."DeviceRecordID", c."IMEINumber", d."Real_Name", d."Lat", d."Long", d."PowerLineID"`;
const CHECK_IN_JOIN = (alias: string) => `left join device_records r on r."RecordID" = ${alias}."DeviceRecordID" and r."date" = ${alias}."PacketTimestamp"`;
/** What each row shows of the check-in that brought it. */
const CHECK_IN_COLUMNS = ['Ongoing_fault', 'ActualOngoingFault'] as const;
/** The page's columns in select order: COLUMNS (as `u.*`), the power line's name, the check-in's instant as text, CHECK_IN_COLUMNS. */
const SELECTED = [...[...COLUMNS.matchAll(/\."([^"]+)"/g)].map((m) => m[1]!), 'PowerLineName', 'CheckInAt', ...CHECK_IN_COLUMNS];
const at = columnIndex(SELECTED);

/**
 * Each row's check-in faults, by the check-in's key, one prepared statement for the page. In the page's own
 * statement (a scalar subquery per column) the lookup was planned over every month of device_records on every
 * ranged request: 0.9 of a week's 1.8 ms of planning at 27 months. Prepared, its generic plan prunes each probe to
 * its month when it runs (a LATERAL per key; `limit 1`, the key being unique, keeps it one). The instant goes as
 * text: a JavaScript Date holds milliseconds, a stored instant may hold microseconds.
 */
const CHECK_IN_FILL = `select k.i::int as i, ${CHECK_IN_COLUMNS.map((c) => `r."${c}"`).join(', ')}
  from unnest($1::bigint[], $2::timestamptz[]) with ordinality k(id, at, i)
  cross join lateral (select ${CHECK_IN_COLUMNS.map((c) => `r."${c}"`).join(', ')} from device_records r where r."RecordID" = k.id and r."date" = k.at limit 1) r`;
async function fillCheckIns(pool: pg.Pool, rows: unknown[][]): Promise<void> {
  const [id, instant] = [at('DeviceRecordID'), at('CheckInAt')];
  const { rows: found } = await pool.query<Record<string, unknown>>(prepared(CHECK_IN_FILL, [rows.map((r) => r[id]), rows.map((r) => r[instant])]));
  for (const f of found) {
    const row = rows[(f.i as number) - 1]!;
    for (const c of CHECK_IN_COLUMNS) row[at(c)] = f[c];
  }
}
/** Each row: its source, the event as the events list shows it (spec 3.4) without the table and id, the alert's models, the device, the check-in's faults (row-json.ts). */
const WRITE = rowWriter([
  ['Source', plain(at('Source'))], ['SourceID', plain(at('SourceID'))],
  ...eventFields(at, ['EventTable', 'Event_Record_ID']),
  ...(['oldModel', 'newModel', 'Real_Name', 'Lat', 'Long', 'PowerLineID', 'PowerLineName'] as const).map((c) => [c, plain(at(c))] as const),
  ...CHECK_IN_COLUMNS.map((c) => { const i = at(c); return [c, (row: readonly unknown[]) => displayFault(row[i])] as const; }),
]);

/** Whether a filter reads the check-in `r` (FILTERABLE's columns on `r.`). */
const readsCheckIn = (q: ListQuery) => q.filters.some((f) => FILTERABLE[f.field]?.sql.startsWith('r.'));

export type { ActiveDevice, CriticalWalk, SourceWalk } from './critical-walk.js';

/** What criticalDataPage is asked to walk: one walk for every source, or one each. */
export type PageWalk = 'by time' | 'by device' | 'by active device' | CriticalWalk;

/**
 * Up to this many devices in reach, a group user's page of a day range walks by device: one descent of each
 * source's index per device and month in range, so a few hundred devices cost about what the walk by time costs
 * when it finds the page at once; beyond, by time, or over its active devices a source that few of them had
 * events of (docs/decisions.md#critical-data-walked-per-device).
 */
export const DEVICE_WALK_MAX = 200;

/**
 * A source with more rows than this in critical_event_months over the range's months (a row: a device with events
 * in a month) is busy enough that its walk by time meets the caller's events early; looking for its devices in
 * reach would cost more than it saves (docs/decisions.md#critical-data-sources-a-group-has-not).
 */
export const ACTIVE_ROWS_MAX = 2_000;

/** A group user's day range in the default order without filters: the form the per-device walks serve (the keys of each device's index carry that order and those conditions). */
const isPlainRange = (caller: Caller, q: Pick<ListQuery, 'from' | 'to' | 'sort' | 'filters'>): boolean =>
  caller.role === 'user' && isRanged(q) && isDefaultOrder(q.sort, DEFAULT_SORT) && q.filters.length === 0;

/**
 * The rows of critical_event_months (alias `m`) of source `name` that can hold an event of `range`: its months by
 * the partition key, as eventRange reads it (a month is the first day of its UTC month), the bounds on `p` so
 * that the statement is prepared once per form. A row is a device that had events there (one whose events all
 * went since is harmless: its walk finds nothing).
 */
function activeRows(name: string, range: InstantRange, p: SqlParams): string {
  const months: string[] = [];
  if (range.fromMs !== null) months.push(`m.month >= date_trunc('month', ${p.add(new Date(range.fromMs).toISOString())}::timestamptz at time zone 'UTC')`);
  if (range.untilMs !== null) months.push(`m.month < (${p.add(new Date(range.untilMs + FAULT_SHIFT_MS).toISOString())}::timestamptz at time zone 'UTC')`);
  return `critical_event_months m ${whereClause([`m.source = '${name}'`, ...months])}`;
}

/** How far activeDevices looks: the reach counted up to `reach` + 1, a source's rows up to `rows` + 1, its devices in reach up to `devices` + 1. */
interface ActiveLimits { reach: number; rows: number; devices: number }
/** activeDevices's limits for a page forced to walk every source over its active devices (tests): no reach gate, every row and device. */
const EVERY_ACTIVE: ActiveLimits = { reach: -1, rows: Number.MAX_SAFE_INTEGER - 1, devices: Number.MAX_SAFE_INTEGER - 1 };

/**
 * The devices `caller` reaches, counted up to `limits.reach` + 1, and per source those in reach with rows in
 * critical_event_months over the range's months, in one statement: null for every source when the reach is at
 * most `limits.reach` (CASE runs only the branch it takes), and for a source with more than `limits.rows` rows
 * there or more than `limits.devices` such devices. Each device's reach is asked by IMEI (a LATERAL cut to one
 * row): as a join, the planner hashed the organisation's devices and group links for 834 IMEIs (5 ms). Prepared:
 * its text depends on the range's form alone (the months are placeholders).
 */
async function activeDevices(pool: pg.Pool, caller: Caller, q: Pick<ListQuery, 'from' | 'to'>, limits: ActiveLimits): Promise<{ reach: number; active: (ActiveDevice[] | null)[] }> {
  const p = new SqlParams();
  const reach = reachCondition(caller, p);
  const range = calendarDayRange(q.from, q.to, caller.timeZone);
  const cut = (n: number) => `limit ${integerLiteral(n + 1)}`;
  const rows = SOURCE_NAMES.map((name, i) => `a${i} as materialized (select m."IMEINumber", m.month from ${activeRows(name, range, p)} ${cut(limits.rows)})`);
  // Each listed device as [IMEI, first month, last month], the months as text (pg would read a date as a local-time Date).
  const devices = SOURCE_NAMES.map((_, i) => `case when r.n <= ${integerLiteral(limits.reach)} or (select count(*) from a${i}) > ${integerLiteral(limits.rows)} then null
      else (select coalesce(json_agg(json_build_array(s."IMEINumber", s.first, s.last)), '[]') from (
              select a."IMEINumber", min(a.month)::text as first, max(a.month)::text as last from a${i} a
               cross join lateral (select 1 from device_information d where d."IMEINumber" = a."IMEINumber" and ${reach} limit 1) x
               group by a."IMEINumber" ${cut(limits.devices)}) s) end as s${i}`);
  const text = `with r as materialized (select count(*)::int as n from (select 1 from device_information d where ${reach} ${cut(limits.reach)}) s), ${rows.join(', ')}
    select r.n, ${devices.join(', ')} from r`;
  const { rows: [row] } = await pool.query<Record<string, [string, string, string][] | number | null>>(prepared(text, p.values));
  const active = SOURCE_NAMES.map((_, i) => {
    const list = row![`s${i}`] as [string, string, string][] | null;
    return list === null || list.length > limits.devices ? null : list.map(([imei, first, last]) => ({ imei, first, last }));
  });
  return { reach: row!.n as number, active };
}

/**
 * The walk of `caller`'s page of each source: every source by device for a group user reaching up to
 * DEVICE_WALK_MAX devices, inside a day range, in the default order without filters (isPlainRange); for a group
 * reaching more, over its active devices a source with at most ACTIVE_ROWS_MAX rows in critical_event_months over
 * the range's months and at most DEVICE_WALK_MAX of them in reach, by time the others; any other page by time.
 * Without a range, a device's walk would descend every month's index (a first page cost 1,650 buffers instead of
 * 285 at 40 devices and eight months), and newest-first over all months the walk by time meets the group's events
 * early. Decided at most once a second per caller and range (`deps.walks`): the look cost 3-4 ms of Postgres, as
 * much as the page, and a portal pages through a range in quick succession; the rows are read afresh each time, and
 * a device with its first event of a source in the month shows from the next second on, as a fault on the map does
 * (docs/decisions.md#critical-data-sources-a-group-has-not).
 */
export function walkFor(deps: Pick<ReadDeps, 'pool' | 'walks'>, caller: Caller, q: Pick<ListQuery, 'from' | 'to' | 'sort' | 'filters'>): Promise<CriticalWalk> {
  if (!isPlainRange(caller, q)) return Promise.resolve(everySource('by time'));
  const key = JSON.stringify([caller.userId, caller.org, caller.role, caller.timeZone, q.from, q.to]);
  return deps.walks(key, async () => {
    const { reach, active } = await activeDevices(deps.pool, caller, q, { reach: DEVICE_WALK_MAX, rows: ACTIVE_ROWS_MAX, devices: DEVICE_WALK_MAX });
    if (reach <= DEVICE_WALK_MAX) return everySource('by device');
    return active.map((list) => (list === null ? 'by time' : { active: list }));
  });
}

/**
 * `from <source> join ... where <reach, range, filters>` for each source, built on `p`: for the `page` (with the
 * cursor's conditions), or the rows its total `count`s. The check-in `r` is joined here only when a filter reads
 * it; otherwise after the merge, for the page's rows alone (a week's fault events are thousands of rows, each a
 * lookup in device_records). Walked per device (`by device`, `{ active }`), the source is read in a LATERAL
 * per device, cut to the page's end there (PAGE_CUT.top); the device `d` is the outer one, so the conditions and
 * the order on its columns are constants inside. `inRange`: the day range's markers (eventRange).
 */
function branches(deps: ReadDeps, caller: Caller, q: ListQuery, p: SqlParams, purpose: 'page' | 'count', walk: CriticalWalk, inRange: EventRange, moved: MovedDevices): string[] {
  const top = PAGE_CUT.top;
  const reach = reachCondition(caller, p);
  // The event's device in reach, as a LATERAL on its IMEI (keys-first walks by time and their counts).
  const inReach = `cross join lateral (select 1 from device_information d where d."IMEINumber" = c."IMEINumber" and ${reach} limit 1) reached`;
  const common = ([
    ...movedSinceCondition(moved, p, 'c."IMEINumber"', 'c."PacketTimestamp"'),
    ...inRange.stored,
    ...inRange.reported,
    ...filterConditions(q.filters, FILTERABLE, { codeStrings: deps.codeStrings }, p),
  ]);
  const cursor = purpose === 'page' ? afterCursor(q, p) : SOURCE_NAMES.map(() => []);
  const checkIn = readsCheckIn(q) ? CHECK_IN_JOIN('c') : '';
  const sourceList = sources(`${p.add(MODEL_CHANGE_EVENT_TYPE)}::text`);
  // The devices a per-device walk of source i goes through, as `d`, with the condition that keeps them in reach and
  // those on each device's events: every device, its reach in the walk's where; or a source's active devices
  // (walkFor), each looked up by IMEI with its reach asked again (a LATERAL cut to one row, so never a hash of the
  // organisation's devices) and walked in its listed months alone, partitions pruned as the walk runs (over the
  // whole range, a device with events in one month descended every day partition of a range from 2000: 2,628
  // descents for 12 devices; docs/decisions.md#critical-data-sources-a-group-has-not).
  const perDevice = (i: number): { from: string; where: string; own: string[] } => {
    const w = walk[i]!;
    if (typeof w !== 'object') return { from: 'device_information d', where: `where ${reach}`, own: [] };
    const column = (k: keyof ActiveDevice, type: string) => `${p.add(w.active.map((d) => d[k]))}::${type}[]`;
    return {
      from: `unnest(${column('imei', 'text')}, ${column('first', 'date')}, ${column('last', 'date')}) m("IMEINumber", first, last)
        cross join lateral (select d.* from device_information d where d."IMEINumber" = m."IMEINumber" and ${reach} limit 1) d`,
      where: '',
      own: [`c."ReportedEventTimestamp" >= m.first::timestamp at time zone 'UTC'`, `c."ReportedEventTimestamp" < (m.last + interval '1 month') at time zone 'UTC'`],
    };
  };
  // Keys first (keysFirst below): the walk reads only its index's keys, cut to the page, and only then the page's
  // rows, each by its primary key in a LATERAL so the probe is pruned to the key's partition (a join let the
  // planner hash the keys and scan every partition of a day cut: docs/decisions.md#reads-bounded-at-a-fine-cut;
  // `limit 1`, the key being unique, keeps it a LATERAL). Reading whole rows in the walk, a by-device walk was
  // planned as a bitmap of each device's whole range, and a walk by time fetched every event it stepped over from
  // the heap to learn its device. Every walk by device is keys first; a walk by time only for a group user's day
  // range in the default order without filters (`plain`), where most events it steps over may be out of reach
  // (docs/decisions.md#critical-data-keys-first-by-time). An admin reaches the organisation's events, and newest
  // first over every month a group meets its own early, so those walks meet the page at once and whole rows cost
  // less than keys, the reach per device and a lookup per row (an admin's week 4.4 against 7.8 ms of Postgres; a
  // group's first page 4.9 against 6.2 ms a request).
  const plain = isPlainRange(caller, q);
  // The total's rows (endpoint.ts cappedTotal): in the plain form index-only, the reach asked per device as below;
  // a source walked over its active devices counted over those devices alone.
  if (purpose === 'count' && plain) {
    return sourceList.map((source, i) => {
      if (typeof walk[i] !== 'object') return `from ${source} ${inReach} ${whereClause(common)}`;
      // `offset 0` keeps the LATERAL a subquery per device (pulled up into a join, the planner hashed the source's
      // partitions of the whole range instead of pruning them to the device's months).
      const { from, where, own } = perDevice(i);
      return `from ${from} cross join lateral (select 1 from ${source} ${whereClause(['c."IMEINumber" = d."IMEINumber"', ...own, ...common])} offset 0) c ${where}`;
    });
  }
  const keys = 'c."SourceID", c."ReportedEventTimestamp", c."EventTimestamp"';
  const keyOrder = 'c."EventTimestamp" desc, c."SourceID" desc';
  // The range on the partition key in the row lookup too (set as the walk's): its plan then holds only the range's
  // partitions, not every month's (planning those cost 11 ms for a week at 24 months).
  const lookupRange = inRange.reported;
  const keysFirst = (source: string, keyWalk: string) => `from (${keyWalk}) k
      cross join lateral (select c.* from ${source} ${whereClause(['c."SourceID" = k."SourceID"', 'c."ReportedEventTimestamp" = k."ReportedEventTimestamp"', ...lookupRange])} limit 1) c
      join device_information d on d."IMEINumber" = c."IMEINumber"`;
  return sourceList.map((source, i) => {
    if (purpose === 'page' && walk[i] !== 'by time') {
      // Each device's keys newest first (migration 0048's index per IMEI), each cut to the page, then cut together.
      const { from, where, own } = perDevice(i);
      return keysFirst(source, `select k.* from ${from}
        cross join lateral (select ${keys} from ${source}
          ${whereClause(['c."IMEINumber" = d."IMEINumber"', ...own, ...common, ...cursor[i]!])} order by ${keyOrder} limit ${top}) k
        ${where} order by k."EventTimestamp" desc, k."SourceID" desc limit ${top}`);
    }
    if (purpose === 'page' && plain) {
      // By time, index-only on migration 0050's index (it carries the device); whether the device is in reach is
      // asked once per device, not per event (a LATERAL on the IMEI the planner memoises: a week's 15,634 DM1
      // events of 834 devices were 15,634 probes of the group links).
      return keysFirst(source, `select ${keys} from ${source} ${inReach}
        ${whereClause([...common, ...cursor[i]!])} order by ${keyOrder} limit ${top}`);
    }
    return `from ${source}
      join device_information d on d."IMEINumber" = c."IMEINumber"
      ${checkIn}
      ${whereClause([reach, ...common, ...cursor[i]!])}`;
  });
}

export const criticalData: ReadEndpoint = {
  path: '/critical-data',
  summary: 'Fault events and model-change alerts with device information',
  description: `Paginated fault events (EventType in ${FAULT_EVENT_TYPES.join(', ')}; standard and DM1 tables) and model-change alerts (EventType "${MODEL_CHANGE_EVENT_TYPE}") of every device in reach, with device name, location and power line; spec 3.4 applied; Ongoing_fault / ActualOngoingFault are those of the check-in that brought the event, masked per spec 3.5. EventType "Fault" filters every fault event type.`,
  params: { accepts: ['page', 'limit', 'from', 'to', 'sortBy', 'filterBy', 'after'], sortable: SORTABLE, filterable: FILTERABLE },
  defaultSort: DEFAULT_SORT, rangeField: 'EventTimestamp', schema: 'CriticalEvent', shape: 'paginated',
  run: async (deps, caller, q) => criticalDataPage(deps, caller, q, await walkFor(deps, caller, q)),
};

/** The markers a page's statements hold: the day range's and, on a ranged keyset page, the cursor's instant (afterCursor). */
function pageMarkers(q: ListQuery, inRange: EventRange): Record<string, string> {
  const cursor = isRanged(q) ? cursorOf(q, KEYSET, DEFAULT_SORT) : null;
  return cursor ? { ...inRange.instants, [CURSOR_AT]: cursorInstant(cursor[0]!) } : inRange.instants;
}

/**
 * One page of critical data found by `walk`: one for every source (`by active device`: each source over every device
 * in reach it lists, whatever their number), or one each (the route's is walkFor's; tests ask each for the same answer).
 */
export async function criticalDataPage(deps: ReadDeps, caller: Caller, q: ListQuery, walkOf: PageWalk): Promise<JsonText> {
  const walk = walkOf === 'by active device' ? (await activeDevices(deps.pool, caller, q, EVERY_ACTIVE)).active.map((list) => ({ active: list! }))
    : typeof walkOf === 'string' ? everySource(walkOf) : walkOf;
  // Each source is sorted and cut to the first page + offset rows on its own (an index walk that stops
  // early), then the few survivors are merged: sorting the union of millions of events would not stop.
  const p = new SqlParams();
  const inRange = eventRange('c', calendarDayRange(q.from, q.to, caller.timeZone));
  const moved = await movedDevices(deps.pool, caller); // one read for the page's statement and the total's
  const parts = branches(deps, caller, q, p, 'page', walk, inRange, moved);
  const inner = orderBy(q.sort, SORTABLE, DEFAULT_SORT, TIE_BREAKER);
  // PAGE_CUT.top: set as pageJson sets the page's limit and offset (endpoint.ts statement).
  const merged = parts.map((fromWhere) => `(select ${COLUMNS} ${fromWhere} order by ${inner} limit ${PAGE_CUT.top})`).join(' union all ');
  const cp = new SqlParams();
  const count = countersAnswer(q) ? { count: counterTotal('critical_events', caller) } : { countParts: { parts: branches(deps, caller, q, cp, 'count', walk, inRange, moved), values: cp.values } };
  const ctx = presentContext(caller, deps.codeStrings);
  // The power line and the check-in are read for the page's rows alone, not joined before the merged rows are
  // sorted and cut: with the joins there, a deep or dense page (page 20 of a week: 1,050 merged rows) was planned
  // as a hash join over a month of device_records, 1.5 s instead of a few probes
  // (bench/results/keyset-plans-300k.txt). The power line is a subquery in the select list, run once per row the
  // sort hands to the LIMIT; the check-in's faults are filled in afterwards (fillCheckIns).
  const fromWhere = `from (${merged}) u`;
  const selectList = `u.*, (select pl.name from power_lines pl where pl."Id" = u."PowerLineID") as "PowerLineName",
    u."PacketTimestamp"::text as "CheckInAt", ${CHECK_IN_COLUMNS.map((c) => `null::integer as "${c}"`).join(', ')}`;
  return pageJson(deps, p, { selectList, fromWhere, order: orderBy(q.sort, MERGED, DEFAULT_SORT, MERGED_TIE_BREAKER), ...count, keyset: KEYSET, fill: fillCheckIns, range: pageMarkers(q, inRange) }, q, WRITE, ctx);
}
