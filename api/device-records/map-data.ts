// /device-records/map-data: every reachable device with its place and latest status, for the map view
// (docs/decisions.md). Not paginated: a map shows the whole fleet at once; filterBy narrows it.
import { fault, num, text, type FieldTable } from './fields.js';
import { CLOCK_JOIN, onlineSql, type ReadDeps, type ReadEndpoint } from './endpoint.js';
import type { Caller } from '../auth/caller.js';
import type { ListQuery } from './list-params.js';
import { displayFault, displayTime, presentContext } from './present.js';
import { deviceLatestJoin } from './latest-record.js';
import { reachCondition } from './reach.js';
import { filterConditions, SqlParams, whereClause } from './sql.js';

const FILTERABLE: FieldTable = {
  IMEINumber: text('d."IMEINumber"'), Real_Name: text('d."Real_Name"'), PowerLineID: text('d."PowerLineID"'),
  ActualOngoingFault: fault('r."ActualOngoingFault"'), BatteryOrLine: num('r."BatteryOrLine"'),
};

export const mapData: ReadEndpoint = {
  path: '/map-data',
  summary: 'Device locations and latest status for the map view',
  description: 'Every device in reach with Lat, Long, name, power line, latest ActualOngoingFault (masked per spec 3.5), BatteryOrLine, last check-in and Offline (checked in, but not within two of its learned check-in intervals, at most OFFLINE_AFTER_HOURS: the rule of device-summary and the DNP3 communication-lost point); ordered by IMEINumber; not paginated. Computed at most once a second per caller and filter, sent with a strong ETag (a matching If-None-Match gets 304 Not Modified) and gzip-encoded when Accept-Encoding allows.',
  params: { accepts: ['filterBy'], sortable: {}, filterable: FILTERABLE },
  schema: 'MapDevice', shape: 'list', fleetWide: true,
  run: compute,
};

async function compute(deps: ReadDeps, caller: Caller, q: ListQuery): Promise<unknown> {
  const { pool, codeStrings } = deps;
  const p = new SqlParams();
  const online = onlineSql(deps, p);
  const conditions = [reachCondition(caller, p), ...filterConditions(q.filters, FILTERABLE, { codeStrings }, p)];
  const { rows } = await pool.query(`
    select d."IMEINumber", d."Real_Name", d."Lat", d."Long", d."PowerLineID", pl.name as "PowerLineName", d."LastCheckInTime",
           r."ActualOngoingFault", r."BatteryOrLine", d."LastCheckInTime" is not null and not coalesce(${online}, false) as "Offline"
      from device_information d
      ${CLOCK_JOIN}
      left join power_lines pl on pl."Id" = d."PowerLineID"
      ${deviceLatestJoin()}
      ${whereClause(conditions)}
     order by d."IMEINumber"`, p.values);
  const ctx = presentContext(caller, codeStrings);
  return {
    data: rows.map((row: Record<string, unknown>) => ({
      IMEINumber: row.IMEINumber, Real_Name: row.Real_Name ?? null, Lat: row.Lat ?? null, Long: row.Long ?? null,
      PowerLineID: row.PowerLineID ?? null, PowerLineName: row.PowerLineName ?? null,
      ActualOngoingFault: displayFault(row.ActualOngoingFault), BatteryOrLine: row.BatteryOrLine ?? null,
      LastCheckInTime: displayTime(row.LastCheckInTime, ctx), Offline: row.Offline === true,
    })),
  };
}
