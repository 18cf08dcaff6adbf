// device_currents_newest (migration 0056) against device_currents, checked here in SQL of its own: what the
// triggers, the back-fill and retention keep must be each device's newest rows, as many as promised.
import type pg from 'pg';
import * as assert from 'uvu/assert';

/**
 * Fails `what` unless every device's rows in device_currents_newest are, column for column, its newest rows in
 * device_currents, at least least(its rows, kept) and at most kept + slack of them.
 */
export async function assertNewestCurrentsKept(pool: pg.Pool, what: string): Promise<void> {
  const { rows } = await pool.query<{ kept: string | null; newest: string | null; short: string[] | null; long: string[] | null; devices: number }>(`
    with sizes as (select "IMEINumber", count(*) as n from device_currents_newest group by 1),
    totals as (select "IMEINumber", count(*) as n from device_currents group by 1),
    ranked as (select b, b."IMEINumber", b."PacketTimestamp", row_number() over (partition by b."IMEINumber" order by b."PacketTimestamp" desc) as r from device_currents b)
    select (select md5(string_agg(k::text, ',' order by k."IMEINumber", k."PacketTimestamp")) from device_currents_newest k) as kept,
           (select md5(string_agg(x.b::text, ',' order by x."IMEINumber", x."PacketTimestamp")) from ranked x join sizes s using ("IMEINumber") where x.r <= s.n) as newest,
           (select array_agg(t."IMEINumber") from totals t left join sizes s using ("IMEINumber")
             where coalesce(s.n, 0) < least(t.n, fl_currents_newest_kept())) as short,
           (select array_agg("IMEINumber") from sizes where n > fl_currents_newest_kept() + fl_currents_newest_slack()) as long,
           (select count(*)::int from totals) as devices`);
  const r = rows[0]!;
  assert.ok(r.devices > 0, `${what}: devices with currents to check`);
  assert.equal(r.short, null, `${what}: devices with fewer newest rows kept than promised`);
  assert.equal(r.long, null, `${what}: devices with more newest rows kept than kept + slack`);
  assert.is(r.kept, r.newest, `${what}: device_currents_newest holds each device's newest rows of device_currents`);
}
