// The fleet read endpoints (issue 44 point 2), described once like the spec's (api/device-records/endpoint.ts):
// app.ts mounts them at `/` and api/openapi/document.ts documents them from these objects.
import type { ReadEndpoint } from '../device-records/endpoint.js';
import { fleetDevices, fleetDevicesCsv } from './devices.js';
import { fleetDeviceHealth } from './health.js';
import { fleetSummaryEndpoint } from './summary.js';

export const FLEET_ENDPOINTS: readonly ReadEndpoint[] = [fleetSummaryEndpoint, fleetDevices, fleetDevicesCsv, fleetDeviceHealth];
