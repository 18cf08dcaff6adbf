// An organisation's whole point map as the outstation serves it: its DNP3 integration, banks and point rows
// (devices and power lines). Read by GET /api/dnp3/pointMap and the device profile, so what a SCADA engineer
// configures from is what the master gets. Which slots it lists is the neutral points/organisation-map.ts.
import type pg from 'pg';
import { integrationFromRow } from '../identity.js';
import { readIntegrations } from '../../integrations/store.js';
import { pointMapBanks, pointMapRows } from './point-map.js';
import { organisationSlots } from '../../points/organisation-map.js';
import { powerLinePointRows } from './power-lines.js';

/** The organisation's DNP3 integration, banks and point rows, as the outstation serves them (also read by the device profile). */
/** `devices`: which of the organisation's devices the map lists (a caller's reach); default every one not deleted. */
export async function organisationPointMap(pool: pg.Pool, org: string, devices?: { sql: string; values: unknown[] }) {
  const { devices: slotted, lines, maxSlot: highest } = await organisationSlots(pool, org, devices);
  const [stored] = await readIntegrations(pool, { kind: 'dnp3', organizationId: org });
  const integration = stored ? integrationFromRow(stored) : undefined;
  const analogOnly = integration?.analogOnly ?? false;
  const outstationAddress = integration?.outstationAddress ?? 10;
  return {
    integration, analogOnly, outstationAddress,
    banks: pointMapBanks(highest, { analogOnly, outstationAddress }),
    points: [...pointMapRows(slotted, { analogOnly, outstationAddress, maxSlot: highest }), ...powerLinePointRows(lines, { analogOnly, outstationAddress })]
      .sort((a, b) => a.bank - b.bank || (a.type === b.type ? a.index - b.index : a.type === 'binary' ? -1 : 1)),
  };
}
