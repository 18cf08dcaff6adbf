// Device information lookups for enrich: one query per batch for every IMEI in it, so a rename or a new
// registration takes effect from the next batch on, with no cache to invalidate.
import type pg from 'pg';
import type { DeviceSnapshot } from '../../domain/checkin.js';

export async function findDevices(pool: pg.Pool, imeis: readonly string[]): Promise<Map<string, DeviceSnapshot>> {
  const found = new Map<string, DeviceSnapshot>();
  if (imeis.length === 0) return found;
  const { rows } = await pool.query<DeviceSnapshot>(
    `select "DeviceID", "IMEINumber", "Real_Name", "Lat", "Long", "OrganizationID", "PowerLineID", "dnp3QueueAddress"
       from device_information where "IMEINumber" = any($1) and deleted_at is null`,
    [imeis],
  );
  for (const row of rows) found.set(row.IMEINumber, row);
  return found;
}
