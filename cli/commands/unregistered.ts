// docs/decisions.md#unknown-device: IMEIs that check in without being registered, with first and last check-in.
import { openRuntime } from '../runtime.js';

export async function run(): Promise<void> {
  const runtime = await openRuntime();
  try {
    const { rows } = await runtime.pool.query<{ imei: string; first: Date; last: Date; checkins: number }>(
      `select r."IMEINumber" as imei, min(r."date") as first, max(r."date") as last, count(*)::int as checkins
         from device_records r
        where not exists (select 1 from device_information d where d."IMEINumber" = r."IMEINumber" and d.deleted_at is null)
        group by r."IMEINumber" order by max(r."date") desc`,
    );
    if (rows.length === 0) process.stdout.write('no unregistered devices\n');
    for (const r of rows) process.stdout.write(`${r.imei}  first ${r.first.toISOString()}  last ${r.last.toISOString()}  ${r.checkins} check-ins\n`);
  } finally {
    await runtime.close();
  }
}
