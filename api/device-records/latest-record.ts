// The latest device record of device `d`, as a lateral subquery: one backward step on the unique index
// (IMEINumber, date), so a device list costs one index probe per device, not a scan of its history. A record
// from before the device joined its organisation is not its latest here (docs/decisions.md#reach-applied-once).

/** `left join lateral (...) <alias> on true` selecting `columns` of the newest record of `d`. */
export function latestRecordJoin(columns: readonly string[], alias = 'r', d = 'd'): string {
  const list = columns.map((c) => `x."${c}"`).join(', ');
  return `left join lateral (
    select ${list} from device_records x where x."IMEINumber" = ${d}."IMEINumber" and x."date" >= ${d}."OrganizationSince" order by x."date" desc limit 1
  ) ${alias} on true`;
}

/** `left join device_latest <alias>` of device `d`, empty when the latest check-in predates the device's joining its organisation. */
export function deviceLatestJoin(alias = 'r', d = 'd'): string {
  return `left join device_latest ${alias} on ${alias}."IMEINumber" = ${d}."IMEINumber" and ${alias}."date" >= ${d}."OrganizationSince"`;
}

/** The device's non-deleted groups, as a sorted text[] column `groups`. */
export const GROUPS_COLUMN = `array(
    select l."GroupID" from group_device_links l join groups g on g."GroupID" = l."GroupID" and g.deleted_at is null
     where l."DeviceID" = d."DeviceID" order by l."GroupID") as "groups"`;
