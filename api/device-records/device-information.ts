// /device-records/device-information/<imei>: device information plus its latest record (docs/decisions.md),
// read as one array row and written straight into its JSON text (row-json.ts).
import type { ReadEndpoint } from './endpoint.js';
import { GROUPS_COLUMN, latestRecordJoin } from './latest-record.js';
import { DEVICE_COLUMNS, deviceFields, deviceSelectList, presentContext, RECORD_COLUMNS, recordFields, recordSelectList, type PresentContext } from './present.js';
import { deviceNotFound, isPlausibleImei, reachCondition } from './reach.js';
import { columnIndex, JsonText, plain, rowWriter } from './row-json.js';
import { SqlParams } from './sql.js';

/** The latest record's columns are selected as `latest_<column>`, after the device's and its groups. */
const LATEST = 'latest_';
const at = columnIndex([...DEVICE_COLUMNS, 'groups', ...RECORD_COLUMNS.map((c) => LATEST + c)]);
const latestAt = (name: string) => at(LATEST + name);
const writeRecord = rowWriter(recordFields(latestAt));
const latestId = latestAt('RecordID');
/** The device as presentDevice shows it, its groups, and `latestRecord` as data-log writes a record (null before the first check-in). */
const WRITE = rowWriter<PresentContext>([
  ...deviceFields(at), ['groups', plain(at('groups'))],
  ['latestRecord', { text: (row, ctx) => (row[latestId] == null ? 'null' : writeRecord(row, ctx)) }],
]);

export const deviceInformation: ReadEndpoint = {
  path: '/device-information/:imei',
  summary: 'One device: information and latest record',
  description: 'Device information (spec 2.5) of one IMEI in the caller\'s reach (404 otherwise) with power line name, groups and `latestRecord`, the newest device record formatted like data-log (null before the first check-in).',
  params: { accepts: [], sortable: {}, filterable: {} },
  schema: 'DeviceInformation', shape: 'object',
  async run({ pool, codeStrings }, caller, _q, imei) {
    // A NUL byte in the path would otherwise reach Postgres (invalid UTF-8 text: a 500).
    if (!isPlausibleImei(imei)) throw deviceNotFound(imei ?? '');
    const p = new SqlParams();
    const { rows } = await pool.query<unknown[]>({
      text: `
      select ${deviceSelectList()}, ${GROUPS_COLUMN}, ${recordSelectList('r', LATEST)}
        from device_information d
        left join power_lines pl on pl."Id" = d."PowerLineID"
        ${latestRecordJoin(RECORD_COLUMNS)}
       where d."IMEINumber" = ${p.add(imei)}::text and ${reachCondition(caller, p)}`,
      values: p.values,
      rowMode: 'array',
    });
    const row = rows[0];
    if (!row) throw deviceNotFound(imei!);
    return new JsonText(WRITE(row, presentContext(caller, codeStrings)));
  },
};
