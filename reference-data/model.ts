// The validated form of an import file (docs/decisions.md#import-format). Only `validateImport` makes these;
// everything after it trusts them.
import type { Phase } from '../domain/feeder-topology.js';
import type { IntegrationKind } from '../integrations/store.js';
import type { Credentials } from '../secrets/credentials.js';
import type { AlarmClass } from '../domain/alarm-kinds.js';
import type { AlarmEscalation, AlarmHours } from '../domain/alarm-rules.js';
import type { ProfileField } from '../fleet/settings-drift.js';
import type { FleetDigestEvery } from '../domain/fleet-digest.js';

export type RecipientChannel = 'email' | 'sms' | 'webhook';

export interface AlarmRecipientInput {
  id: string;
  OrganizationID: string;
  name: string | null;
  channel: RecipientChannel;
  address: string;
  capPerDay: number | null;
  /** A daily or weekly fleet health digest (docs/decisions.md#fleet-digest); null: none. */
  fleetDigest: FleetDigestEvery | null;
  /** 'keep': not in the file, the stored one stays; null: none. */
  secret: string | null | 'keep';
}

export interface AlarmRuleInput {
  id: string;
  OrganizationID: string;
  name: string | null;
  class: AlarmClass;
  what: string[];
  where: { powerLines: string[]; groups: string[]; devices: string[] };
  who: string[];
  when: AlarmHours | null;
  escalation: AlarmEscalation | null;
  enabled: boolean;
}

export interface OrganizationInput {
  OrganizationID: string;
  name: string;
  MaskFaultDetails: boolean;
  /** IANA zone; 'UTC' when absent. */
  timezone: string;
  /** The hot-spot rule: N incidents within D days (domain/recurring-section.ts); null: the defaults. */
  RecurringSectionIncidents: number | null;
  RecurringSectionDays: number | null;
}

export interface PowerLineInput {
  Id: string;
  OrganizationID: string;
  name: string | null;
}

export interface GroupInput {
  GroupID: string;
  OrganizationID: string;
  name: string | null;
  /**
   * The group profile (docs/decisions.md#settings-drift): the firmware and reset settings its devices should
   * report, by import field (FirmwareVersion, Tempfault_Reset_Hours, ...); null: not checked.
   */
  profile: Record<ProfileField, string | number | null>;
}

export interface DeviceInput {
  IMEINumber: string;
  OrganizationID: string;
  PowerLineID: string | null;
  Real_Name: string | null;
  Lat: number | null;
  Long: number | null;
  serialNumber: string | null;
  dnp3QueueAddress: string | null;
  /** Feeder topology (domain/feeder-topology.ts): the indicator directly upstream, the phase, the label below. */
  UpstreamIMEI: string | null;
  Phase: Phase | null;
  Section: string | null;
  /** Optional facts of that section for reliability analytics (docs/decisions.md#reliability-analytics-issue-43-rel-core): customers supplied below the indicator, and its length. */
  SectionCustomers: number | null;
  SectionLengthKm: number | null;
  /** Exactly the device's groups after the import. */
  groups: string[];
  deleted: boolean;
}

export interface UserInput {
  email: string;
  /** null: keep the stored hash (an existing user only; validation refuses a new user without one). */
  password: string | null;
  OrganizationID: string;
  role: 'admin' | 'user';
  timezone: string | null;
  groups: string[];
  deleted: boolean;
}


export interface IntegrationInput {
  id: string;
  OrganizationID: string;
  kind: IntegrationKind;
  channel: 'A' | 'B' | 'C' | 'D';
  enabled: boolean;
  /** Everything not secret, exactly as given (only known keys). */
  settings: Record<string, string | number | boolean>;
  /** 'keep': the file does not mention credentials, the stored ones stay; null: remove them. */
  credentials: Credentials | null | 'keep';
}

export interface ImportData {
  alarmRecipients: AlarmRecipientInput[];
  alarmRules: AlarmRuleInput[];
  organizations: OrganizationInput[];
  powerLines: PowerLineInput[];
  groups: GroupInput[];
  devices: DeviceInput[];
  users: UserInput[];
  integrations: IntegrationInput[];
}

export const KINDS = ['organizations', 'powerLines', 'groups', 'devices', 'users', 'integrations', 'alarmRecipients', 'alarmRules'] as const;
export type Kind = (typeof KINDS)[number];

export interface KindCounts { inserted: number; updated: number; unchanged: number }
export type ImportCounts = Record<Kind, KindCounts>;
