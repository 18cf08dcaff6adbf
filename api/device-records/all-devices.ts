// /device-records/all-devices: paginated device information with the latest status (docs/decisions.md).
import { fault, num, text, type FieldTable } from './fields.js';
import { CLOCK_JOIN, onlineSql, pageJson, type ReadEndpoint } from './endpoint.js';
import { GROUPS_COLUMN, latestRecordJoin } from './latest-record.js';
import { DEVICE_COLUMNS, deviceFields, deviceSelectList, presentContext, STATUS_COLUMNS, statusFields } from './present.js';
import { columnIndex, plain, rowWriter } from './row-json.js';
import { reachCondition } from './reach.js';
import { filterConditions, orderBy, SqlParams, whereClause } from './sql.js';

const SORTABLE: FieldTable = {
  IMEINumber: text('d."IMEINumber"'), Real_Name: text('d."Real_Name"'), PowerLineID: text('d."PowerLineID"'),
  serialNumber: text('d."serialNumber"'), LastCheckInTime: num('d."LastCheckInTime"'), DeviceID: num('d."DeviceID"'),
  // By code: the portal's "sort by state" (refused for a masked caller, routes.ts).
  ActualOngoingFault: num('r."ActualOngoingFault"'),
};
const FILTERABLE: FieldTable = {
  IMEINumber: text('d."IMEINumber"'), Real_Name: text('d."Real_Name"'), PowerLineID: text('d."PowerLineID"'),
  serialNumber: text('d."serialNumber"'), model: text('r."model"'), ActualOngoingFault: fault('r."ActualOngoingFault"'),
  BatteryOrLine: num('r."BatteryOrLine"'), Connectivity: { sql: 'd."LastCheckInTime"', type: 'connectivity' },
};
const DEFAULT_SORT = [{ field: 'IMEINumber', order: 'asc' }] as const;
const TIE_BREAKER = ['d."DeviceID"'];
/** Each device: its information, its groups, its latest status, from the select list below in its order (row-json.ts). */
const at = columnIndex([...DEVICE_COLUMNS, 'groups', ...STATUS_COLUMNS]);
const WRITE = rowWriter([...deviceFields(at), ['groups', plain(at('groups'))], ...statusFields(at)]);

export const allDevices: ReadEndpoint = {
  path: '/all-devices',
  summary: 'All devices in reach, with filters',
  description: 'Paginated device information (spec 2.5) with power line name, groups and the latest status (date, model, Ongoing_fault, ActualOngoingFault masked per spec 3.5, BatteryOrLine, BatteryMCU, AverageCurrent1m, Temperature, rssi; null before the first check-in). filterBy[Connectivity] = online, offline or never selects the devices the device-summary counts so.',
  params: { accepts: ['page', 'limit', 'sortBy', 'filterBy'], sortable: SORTABLE, filterable: FILTERABLE },
  defaultSort: DEFAULT_SORT, schema: 'Device', shape: 'paginated',
  async run(deps, caller, q) {
    const { codeStrings } = deps;
    const p = new SqlParams();
    const conditions = [reachCondition(caller, p), ...filterConditions(q.filters, FILTERABLE, { codeStrings, online: (pp) => onlineSql(deps, pp) }, p)];
    // The latest-record lookup is needed for the count only when a filter reads it.
    const needsStatus = q.filters.some((f) => FILTERABLE[f.field]!.sql.startsWith('r.'));
    const where = whereClause(conditions);
    const fromWhere = `from device_information d left join power_lines pl on pl."Id" = d."PowerLineID" ${CLOCK_JOIN} ${latestRecordJoin(STATUS_COLUMNS)} ${where}`;
    const count = needsStatus ? undefined : { sql: `select count(*) as n from device_information d ${CLOCK_JOIN} ${where}`, values: [...p.values] };
    const select = `${deviceSelectList()}, ${GROUPS_COLUMN}, ${STATUS_COLUMNS.map((c) => `r."${c}"`).join(', ')}`;
    const ctx = presentContext(caller, codeStrings);
    return pageJson(deps, p, { selectList: select, fromWhere, order: orderBy(q.sort, SORTABLE, DEFAULT_SORT, TIE_BREAKER), count }, q, WRITE, ctx);
  },
};
