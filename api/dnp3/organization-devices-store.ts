// The SQL of GET /api/dnp3/dnp3OrganizationDevices (organization-devices.ts): the devices in the caller's reach
// with their power line, DNP3 slot and latest record.
import type pg from 'pg';
import type { Caller } from '../auth/caller.js';
import { deviceLatestJoin } from '../device-records/latest-record.js';
import { reachCondition } from '../device-records/reach.js';
import { SqlParams } from '../device-records/sql.js';

const query = (where: string) => `
  select d."IMEINumber", d."Real_Name", d."Lat", d."Long", d."PowerLineID", pl.name as "PowerLineName", d."serialNumber",
         d."dnp3QueueAddress", s.slot as "dnp3Slot", d."LastCheckInTime", r."ActualOngoingFault", r."BatteryOrLine"
    from device_information d
    left join power_lines pl on pl."Id" = d."PowerLineID"
    left join dnp3_slots s on s."OrganizationID" = d."OrganizationID" and s."IMEINumber" = d."IMEINumber"
    ${deviceLatestJoin()}
   where ${where}
   order by d."IMEINumber"`;

export interface OrganizationDeviceRow {
  IMEINumber: string; Real_Name: string | null; Lat: number | null; Long: number | null; PowerLineID: string | null;
  PowerLineName: string | null; serialNumber: string | null; dnp3QueueAddress: string | null; dnp3Slot: number | null; LastCheckInTime: Date | null;
  ActualOngoingFault: number | null; BatteryOrLine: number | null;
}

/** The devices in the caller's reach, by IMEI. */
export async function organizationDevices(pool: pg.Pool, caller: Caller): Promise<OrganizationDeviceRow[]> {
  const p = new SqlParams();
  const { rows } = await pool.query<OrganizationDeviceRow>(query(reachCondition(caller, p)), p.values);
  return rows;
}
