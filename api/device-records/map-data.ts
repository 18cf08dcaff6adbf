// /device-records/map-data: every reachable device with its place and latest status, for the map view
// (docs/decisions.md). Not paginated: a map shows the whole fleet at once; filterBy narrows it. The rows are
// read as arrays and written straight into the answer's JSON text (row-json.ts), which the one-second cache
// keeps (routes.ts), and past it while the database does not change and no device is due to go offline
// (unchanged-answers.ts).
import { fault, num, text, type FieldTable } from './fields.js';
import { CLOCK_JOIN, offlineInstantSql, type ReadDeps, type ReadEndpoint } from './endpoint.js';
import type { Caller } from '../auth/caller.js';
import type { ListQuery } from './list-params.js';
import { displayFault, displayTime, presentContext, type PresentContext } from './present.js';
import { deviceLatestJoin } from './latest-record.js';
import { reachCondition } from './reach.js';
import { JsonText, plain, rowWriter, type CellValue } from './row-json.js';
import { filterConditions, SqlParams, whereClause } from './sql.js';

const FILTERABLE: FieldTable = {
  IMEINumber: text('d."IMEINumber"'), Real_Name: text('d."Real_Name"'), PowerLineID: text('d."PowerLineID"'),
  ActualOngoingFault: fault('r."ActualOngoingFault"'), BatteryOrLine: num('r."BatteryOrLine"'),
};

/** Each field of a map device in API order: its name, the SQL that selects it (`online` the onlineSql text), how it is written. */
const FIELDS: readonly (readonly [string, (online: string) => string, (i: number) => CellValue<PresentContext>])[] = [
  ['IMEINumber', () => 'd."IMEINumber"', plain], ['Real_Name', () => 'd."Real_Name"', plain],
  ['Lat', () => 'd."Lat"', plain], ['Long', () => 'd."Long"', plain], ['PowerLineID', () => 'd."PowerLineID"', plain],
  ['PowerLineName', () => 'pl.name as "PowerLineName"', plain],
  ['ActualOngoingFault', () => 'r."ActualOngoingFault"', (i) => (row) => displayFault(row[i])],
  ['BatteryOrLine', () => 'r."BatteryOrLine"', plain],
  ['LastCheckInTime', () => 'd."LastCheckInTime"', (i) => (row, ctx) => displayTime(row[i], ctx)],
  // Checked in, but not online by the communication-lost rule (endpoint.ts onlineSql).
  ['Offline', (online) => `d."LastCheckInTime" is not null and not coalesce(${online}, false) as "Offline"`, (i) => (row) => row[i] === true],
];
const WRITE = rowWriter(FIELDS.map(([name, , cell], i) => [name, cell(i)] as const));
/** After FIELDS: when an online device goes offline (epoch ms; null for the others), the first of which ends the answer's validity. */
const GOES_OFFLINE = FIELDS.length;

export const mapData: ReadEndpoint = {
  path: '/map-data',
  summary: 'Device locations and latest status for the map view',
  description: 'Every device in reach with Lat, Long, name, power line, latest ActualOngoingFault (masked per spec 3.5), BatteryOrLine, last check-in and Offline (checked in, but not within two of its learned check-in intervals, at most OFFLINE_AFTER_HOURS: the rule of device-summary and the DNP3 communication-lost point); ordered by IMEINumber; not paginated. Computed at most once a second per caller and filter, sent with a strong ETag (a matching If-None-Match gets 304 Not Modified) and gzip-encoded when Accept-Encoding allows.',
  params: { accepts: ['filterBy'], sortable: {}, filterable: FILTERABLE },
  schema: 'MapDevice', shape: 'list', fleetWide: true, keptWhileUnchanged: true,
  run: compute,
};

async function compute(deps: ReadDeps, caller: Caller, q: ListQuery): Promise<JsonText> {
  const { pool, codeStrings } = deps;
  const p = new SqlParams();
  const offlineAt = offlineInstantSql(deps, p);
  // As endpoint.ts onlineSql, with the instant kept for the answer's validity.
  const online = `(${offlineAt} >= ${p.add(new Date(deps.now()))}::timestamptz)`;
  const conditions = [reachCondition(caller, p), ...filterConditions(q.filters, FILTERABLE, { codeStrings }, p)];
  const { rows } = await pool.query<unknown[]>({
    text: `
    select ${FIELDS.map(([, sql]) => sql(online)).join(', ')},
           case when ${online} then (extract(epoch from ${offlineAt}) * 1000)::float8 end as goes_offline
      from device_information d
      ${CLOCK_JOIN}
      left join power_lines pl on pl."Id" = d."PowerLineID"
      ${deviceLatestJoin()}
      ${whereClause(conditions)}
     order by d."IMEINumber"`,
    values: p.values,
    rowMode: 'array',
  });
  const ctx = presentContext(caller, codeStrings);
  // The answer changes by itself when the first online device goes offline; anything else takes a write
  // (unchanged-answers.ts).
  let validUntilMs = Infinity;
  for (const row of rows) if (row[GOES_OFFLINE] !== null && (row[GOES_OFFLINE] as number) < validUntilMs) validUntilMs = row[GOES_OFFLINE] as number;
  return new JsonText(`{"data":[${rows.map((row) => WRITE(row, ctx)).join(',')}]}`, validUntilMs);
}
