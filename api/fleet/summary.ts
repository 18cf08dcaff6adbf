// GET /api/fleet/summary (issue 44 point 2): the /fleet cards' counts over the caller's reach. The counting is
// fleet-health/summary.ts fleetSummary, the one function the fleet digest calls too.
import { fleetSummary } from '../../fleet-health/summary.js';
import type { ReadEndpoint } from '../device-records/endpoint.js';
import { reachCondition } from '../device-records/reach.js';

export const fleetSummaryEndpoint: ReadEndpoint = {
  path: '/api/fleet/summary',
  operationId: 'fleetSummary',
  tag: 'fleet',
  summary: 'Fleet health cards over the devices in reach',
  description: 'Devices; online rate over 7 and 30 days (check-ins received against expected, each device counted up to its expected, from the fleet worker\'s last assessment); devices with an estimated battery end within 90 days; weak and falling signal; firmware versions by model; silent devices by cause; drifting devices. Devices without an assessment count in `devices` only. A device moved from another organisation is assessed for its new one once 30 days have passed since the move (docs/decisions.md#fleet-api-issue-44-fleet-api).',
  params: { accepts: [], sortable: {}, filterable: {} },
  schema: 'FleetSummary', shape: 'object',
  // The portal's cards poll it: one answer a second per caller, with an ETag (routes.ts), like map-data.
  fleetWide: true,
  run: (deps, caller) => fleetSummary(deps.pool, (p) => reachCondition(caller, p), new Date(deps.now())),
};
