// The ten read endpoints of spec 4.2, in the spec's order. routes.ts mounts them; openapi/ documents them.
import { allDevices } from './all-devices.js';
import { criticalData } from './critical-data.js';
import { dataLog, deviceDataLog } from './data-log.js';
import { deviceInformation } from './device-information.js';
import { deviceSummary } from './device-summary.js';
import type { ReadEndpoint } from './endpoint.js';
import { deviceEvents } from './events.js';
import { loadHistory } from './load-history.js';
import { mapData } from './map-data.js';
import { tableColumns } from './table-columns.js';

export const READ_ENDPOINTS: readonly ReadEndpoint[] = [
  tableColumns, criticalData, mapData, dataLog, allDevices, deviceSummary, deviceInformation, deviceDataLog, deviceEvents, loadHistory,
];

/** Spec 4.2 fixes `/device-records/...`; docs/decisions.md adds `/api/device-records/...` as an alias. */
export const READ_PREFIXES = ['/device-records', '/api/device-records'] as const;
