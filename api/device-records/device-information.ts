// /device-records/device-information/<imei>: device information plus its latest record (docs/decisions.md).
import type { ReadEndpoint } from './endpoint.js';
import { GROUPS_COLUMN, latestRecordJoin } from './latest-record.js';
import { deviceSelectList, presentContext, presentDevice, presentRecord, RECORD_COLUMNS } from './present.js';
import { deviceNotFound, isPlausibleImei, reachCondition } from './reach.js';
import { SqlParams } from './sql.js';

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
    const latest = RECORD_COLUMNS.map((c) => `r."${c}" as "latest_${c}"`).join(', ');
    const { rows } = await pool.query(`
      select ${deviceSelectList()}, ${GROUPS_COLUMN}, ${latest}
        from device_information d
        left join power_lines pl on pl."Id" = d."PowerLineID"
        ${latestRecordJoin(RECORD_COLUMNS)}
       where d."IMEINumber" = ${p.add(imei)}::text and ${reachCondition(caller, p)}`, p.values);
    const row = rows[0] as Record<string, unknown> | undefined;
    if (!row) throw deviceNotFound(imei!);
    const ctx = presentContext(caller, codeStrings);
    return { ...presentDevice(row, ctx), groups: row.groups, latestRecord: row.latest_RecordID == null ? null : presentRecord(row, ctx, 'latest_') };
  },
};
