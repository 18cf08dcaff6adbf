// GET /api/fleet/devices (paged, bounded OFFSET like /all-devices) and GET /api/fleet/devices.csv (the same
// list, every page, streamed a batch at a time): devices in reach with their fleet assessment (devices-sql.ts).
import { toSpreadsheetCsv } from '../../plumbing/csv.js';
import { pageJson, type ReadEndpoint } from '../device-records/endpoint.js';
import { integerLiteral } from '../../db/sql-literal.js';
import { SqlParams } from '../device-records/sql.js';
import { CSV_HEADER, csvCells, DEFAULT_SORT, deviceListSql, FILTERABLE, SELECT_LIST, SORTABLE, writeFleetDevice } from './devices-sql.js';

const DESCRIPTION = 'One row per device in reach with its last fleet assessment: online rate over 7 and 30 days (received up to expected, over expected), RSSI median and slope, signal, battery status and days left, firmware and model, silence label and since when, the settings that drift from its group profile. Assessment fields are null for a device not assessed (or moved from another organisation less than 30 days ago: docs/decisions.md#fleet-api-issue-44-fleet-api). Sorting puts nulls last ascending, first descending.';

export const fleetDevices: ReadEndpoint = {
  path: '/api/fleet/devices',
  operationId: 'fleetDevices',
  tag: 'fleet',
  summary: 'Devices in reach with their fleet health, sortable by each card\'s measure',
  description: DESCRIPTION,
  params: { accepts: ['page', 'limit', 'sortBy', 'filterBy'], sortable: SORTABLE, filterable: FILTERABLE },
  defaultSort: DEFAULT_SORT, schema: 'FleetDevice', shape: 'paginated',
  async run(deps, caller, q) {
    const p = new SqlParams();
    const { fromWhere, order } = deviceListSql(caller, q, deps.codeStrings, p);
    return pageJson(deps, p, { selectList: SELECT_LIST, fromWhere, order }, q, writeFleetDevice, null);
  },
};

/** Rows per read of the CSV: each batch leaves before the next is read. */
export const CSV_BATCH = 1_000;

export const fleetDevicesCsv: ReadEndpoint = {
  path: '/api/fleet/devices.csv',
  operationId: 'fleetDevicesCsv',
  tag: 'fleet',
  summary: 'The fleet device list as CSV (every row, in the list\'s order and filters)',
  description: `${DESCRIPTION} Columns: the fields of GET /api/fleet/devices' items in order; driftSettings joined with "|".`,
  params: { accepts: ['sortBy', 'filterBy'], sortable: SORTABLE, filterable: FILTERABLE },
  defaultSort: DEFAULT_SORT, schema: 'FleetDevice', shape: 'csv', fileName: 'fleet-devices.csv',
  run(deps, caller, q) {
    const p = new SqlParams();
    const { fromWhere, order } = deviceListSql(caller, q, deps.codeStrings, p);
    const encoder = new TextEncoder();
    // The order ends with a unique tie-breaker, so consecutive offsets read each device once. A fleet is a
    // few thousand devices: a few batches, each an index walk of the organisation's devices.
    async function* chunks(): AsyncGenerator<Uint8Array> {
      let header = true;
      for (let offset = 0; ; offset += CSV_BATCH) {
        const { rows } = await deps.pool.query<unknown[]>({ text: `select ${SELECT_LIST} ${fromWhere} order by ${order} limit ${CSV_BATCH} offset ${integerLiteral(offset)}`, values: p.values, rowMode: 'array' });
        if (header) {
          header = false;
          yield encoder.encode(toSpreadsheetCsv([CSV_HEADER]));
        }
        if (rows.length) yield encoder.encode(toSpreadsheetCsv(rows.map(csvCells)));
        if (rows.length < CSV_BATCH) return;
      }
    }
    const it = chunks();
    return Promise.resolve(new ReadableStream<Uint8Array>({
      async pull(controller) {
        const next = await it.next();
        if (next.done) controller.close();
        else controller.enqueue(next.value);
      },
      async cancel() { await it.return(undefined); },
    }, { highWaterMark: 1 }));
  },
};
