// An organisation's whole point map as the outstation serves it: its DNP3 integration, banks and point rows
// (devices and power lines). Read by GET /api/dnp3/pointMap and the device profile, so what a SCADA engineer
// configures from is what the master gets.
import type pg from 'pg';
import { integrationFromRow } from '../identity.js';
import { readIntegrations } from '../../integrations/store.js';
import { pointMapBanks, pointMapRows } from './point-map.js';
import { assignPowerLineSlots, slotPowerLines } from '../../points/power-lines.js';
import { powerLinePointRows } from './power-lines.js';
import { assignSlots, maxSlot, slotDevices } from '../../points/store.js';

/** The organisation's DNP3 integration, banks and point rows, as the outstation serves them (also read by the device profile). */
/** `devices`: which of the organisation's devices the map lists (a caller's reach); default every one not deleted. */
export async function organisationPointMap(pool: pg.Pool, org: string, devices?: { sql: string; values: unknown[] }) {
  // Slots are assigned here too, so the map is complete before the outstation has ever run.
  await assignSlots(pool, org);
  await assignPowerLineSlots(pool, org);
  const slotted = await slotDevices(pool, org, devices);
  const lines = await slotPowerLines(pool, org);
  const [stored] = await readIntegrations(pool, { kind: 'dnp3', organizationId: org });
  const integration = stored ? integrationFromRow(stored) : undefined;
  const analogOnly = integration?.analogOnly ?? false;
  const outstationAddress = integration?.outstationAddress ?? 10;
  // The outstation sizes its banks by the highest slot ever given (deleted devices keep theirs), so does the map.
  const highest = await maxSlot(pool, org);
  return {
    integration, analogOnly, outstationAddress,
    banks: pointMapBanks(highest, { analogOnly, outstationAddress }),
    points: [...pointMapRows(slotted, { analogOnly, outstationAddress, maxSlot: highest }), ...powerLinePointRows(lines, { analogOnly, outstationAddress })]
      .sort((a, b) => a.bank - b.bank || (a.type === b.type ? a.index - b.index : a.type === 'binary' ? -1 : 1)),
  };
}
