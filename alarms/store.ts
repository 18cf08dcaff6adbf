// Reading alarm rules and recipients (written by `faultline import` and the admin API, reference-data/).
import type pg from 'pg';
import type { AlarmClass } from '../domain/alarm-kinds.js';
import type { AlarmEscalation, AlarmHours, AlarmRule } from '../domain/alarm-rules.js';
import type { FleetDigestEvery } from '../domain/fleet-digest.js';

type Queryable = Pick<pg.ClientBase, 'query'>;

export type AlarmChannel = 'email' | 'sms' | 'webhook';

export interface StoredRecipient {
  id: string;
  OrganizationID: string;
  name: string | null;
  channel: AlarmChannel;
  address: string;
  capPerDay: number | null;
  /** A daily or weekly fleet health digest (alarms/router.ts sendFleetDigests); null: none. */
  fleetDigest: FleetDigestEvery | null;
  /** A webhook's signing secret, still encrypted. */
  secret: { ciphertext: Buffer; keyId: string } | null;
}

interface RuleRow {
  id: string; OrganizationID: string; name: string | null; class: AlarmClass; kinds: string[]; power_lines: string[]; groups: string[];
  devices: string[]; recipients: string[]; hours: AlarmHours | null; escalation: AlarmEscalation | null; enabled: boolean;
}

const toRule = (r: RuleRow): AlarmRule => ({
  id: r.id, OrganizationID: r.OrganizationID, name: r.name, class: r.class, kinds: r.kinds, powerLines: r.power_lines, groups: r.groups,
  devices: r.devices, recipients: r.recipients, hours: r.hours, escalation: r.escalation, enabled: r.enabled,
});

export async function readRules(db: Queryable, org?: string, id?: string): Promise<AlarmRule[]> {
  const { rows } = await db.query<RuleRow>(
    `select id, "OrganizationID", name, class, kinds, power_lines, groups, devices, recipients, hours, escalation, enabled
       from alarm_rules where ($1::text is null or "OrganizationID" = $1) and ($2::text is null or id = $2) order by id`,
    [org ?? null, id ?? null],
  );
  return rows.map(toRule);
}

interface RecipientRow {
  id: string; OrganizationID: string; name: string | null; channel: AlarmChannel; address: string; cap_per_day: number | null; secret: Buffer | null; secret_key_id: string | null;
  fleet_digest: FleetDigestEvery | null;
}

export async function readRecipients(db: Queryable, org?: string, id?: string): Promise<StoredRecipient[]> {
  const { rows } = await db.query<RecipientRow>(
    `select id, "OrganizationID", name, channel, address, cap_per_day, secret, secret_key_id, fleet_digest
       from alarm_recipients where ($1::text is null or "OrganizationID" = $1) and ($2::text is null or id = $2) order by id`,
    [org ?? null, id ?? null],
  );
  return rows.map((r) => ({
    id: r.id, OrganizationID: r.OrganizationID, name: r.name, channel: r.channel, address: r.address, capPerDay: r.cap_per_day, fleetDigest: r.fleet_digest,
    secret: r.secret && r.secret_key_id ? { ciphertext: r.secret, keyId: r.secret_key_id } : null,
  }));
}
