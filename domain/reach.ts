// Reach (spec 5.3; docs/decisions.md#reach-applied-once): may this caller see this device, and a record of it
// from this instant. The rule as a pure function over plain facts; api/device-records/reach.ts is its SQL
// form, which every reader of device data (REST, SOAP, portal) goes through.

export interface ReachCaller {
  org: string;
  role: 'admin' | 'user';
  /** The user's non-deleted groups (unused for an admin). */
  groups: readonly string[];
}

export interface ReachDevice {
  org: string;
  deleted: boolean;
  /** The device's groups (deleted groups already left out). */
  groups: readonly string[];
  /** When the device joined `org`, epoch ms; -Infinity when it never moved (its whole history is the org's). */
  organizationSince: number;
}

/**
 * Whether `caller` may see `device` at all (`at` omitted), or a record of it dated `at` (epoch ms): a
 * non-deleted device of the caller's organisation; for a user, one linked to one of the user's groups; and a
 * record from before the device joined the organisation belongs to the organisation it came from, not this one.
 * An unregistered IMEI has no ReachDevice and is outside every reach.
 */
export function mayRead(caller: ReachCaller, device: ReachDevice | undefined, at?: number): boolean {
  if (!device || device.deleted || device.org !== caller.org) return false;
  if (caller.role !== 'admin' && !device.groups.some((g) => caller.groups.includes(g))) return false;
  return at === undefined || at >= device.organizationSince;
}
