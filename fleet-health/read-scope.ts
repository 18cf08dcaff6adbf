// What of the fleet assessment a reader of one organisation may see (docs/decisions.md#fleet-api-issue-44-fleet-api).
// The fleet tables hold no organisation: a reader names its devices with a condition on device_information `d`
// (the API's reach, or an organisation's whole fleet for the digest), and this file adds what a device moved
// between organisations brings with it. Its daily rows (device_health_days) reach the new organisation from the
// first day whose first check-in is at or after the move (the move day itself only when nothing of it came
// before the move). Its assessment rows (device_health, device_silence, device_drift) read the last 30 days of
// those rows, so they reach it once the whole window is after the move; and the worker's steps read only the
// device's days in the organisation that holds it (dayReadableSql), so a row that reaches it names no earlier day
// (docs/decisions.md#review-of-fleet-health-as-a-hostile-party).

/** Hands out a placeholder for a value (api/device-records/sql.ts SqlParams, or any collector of the same shape). */
export interface Params { add(value: unknown): string }

/** The devices a reader may see: a condition on device_information alias `d`, its values added to `p`. */
export type DeviceScope = (p: Params) => string;

/** Days an assessment reads back (migration 0034: 7- and 30-day figures, history over the last 30 days). */
export const ASSESSMENT_WINDOW_DAYS = 30;

/** True when device `d`'s day row `h` (device_health_days) is its organisation's: nothing of it before the move. */
export const dayReadableSql = (h: string, d = 'd'): string => `${h}.first_at >= ${d}."OrganizationSince"`;

/** True when the UTC day `day` (SQL of a date) began at or after device `d` joined its organisation: wholly its own. */
export const wholeDayReadableSql = (day: string, d = 'd'): string => `(${day})::timestamp at time zone 'UTC' >= ${d}."OrganizationSince"`;

/** True when device `d`'s assessment row `x` (any 0034 table, with assessed_at) read only days of its organisation. */
export const assessmentReadableSql = (x: string, d = 'd'): string =>
  `${x}.assessed_at - interval '${ASSESSMENT_WINDOW_DAYS} days' >= ${d}."OrganizationSince"`;
