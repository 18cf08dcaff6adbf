// An organisation's IEC 104 point map as its station serves it: the organisation's iec104 integration (its
// common address and "analog only") applied to the slots of the neutral model (points/organisation-map.ts),
// the same slots the DNP3 point map lists. Read by GET /api/iec104/pointMap and the interoperability list.
// It stands above data/ and identity.ts, which it joins (lint/floors.js).
import type pg from 'pg';
import { readIntegrations } from '../integrations/store.js';
import { organisationSlots } from '../points/organisation-map.js';
import { HEARTBEAT_IOA } from './data/point-map.js';
import { iec104PointMapBanks, iec104PointMapRows } from './data/point-map-rows.js';
import { iec104IntegrationFromRow, type Iec104Integration } from './identity.js';

/** The organisation's first enabled integration of kind iec104 (by id), if any. */
export async function organisationIec104Integration(pool: pg.Pool, org: string): Promise<Iec104Integration | undefined> {
  const rows = await readIntegrations(pool, { kind: 'iec104', organizationId: org });
  return rows.map((r) => iec104IntegrationFromRow(r)).find((i) => i !== undefined);
}

/** `devices`: which of the organisation's devices the map lists (a caller's reach); default every one not deleted. */
export async function organisationIec104PointMap(pool: pg.Pool, integration: Iec104Integration, devices?: { sql: string; values: unknown[] }) {
  const slots = await organisationSlots(pool, integration.organizationId, devices);
  const { commonAddress, analogOnly } = integration;
  return {
    integrationId: integration.id, commonAddress, analogOnly, heartbeatIoa: HEARTBEAT_IOA,
    banks: iec104PointMapBanks(slots.maxSlot, commonAddress),
    points: iec104PointMapRows(slots, { commonAddress, analogOnly }),
  };
}
