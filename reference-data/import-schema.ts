// The JSON Schema (draft-07) of the `faultline import` file, committed as schemas/import.schema.json for
// integrators and editors (docs/decisions.md#the-import-files-json-schema). The validator (validate.ts) stays
// the judge: it also checks what a schema cannot (time zones, webhook targets, references to rows in the file
// or the database, the feeder topology). The field names come from the validator's key lists and the
// integration settings from their readers (integration-settings.ts); test/reference-data/import-schema.test.ts
// proves the committed file is this output, that the two accept every fixture and refuse the same wrong files.
import { ALARM_CLASSES, RETIRED_KINDS, RULE_KIND_IDS } from '../domain/alarm-kinds.js';
import { PHASES } from '../domain/feeder-topology.js';
import { DRIFT_SETTINGS } from '../fleet/settings-drift.js';
import { FLEET_DIGEST_EVERY } from '../domain/fleet-digest.js';
import { DEFAULT_RECURRING_SECTION, RECURRING_SECTION_BOUNDS } from '../domain/recurring-section.js';
import type { IntegrationKind } from '../integrations/store.js';
import { MAX_ID_LENGTH, MAX_TEXT_LENGTH } from './field-reader.js';
import { CHANNELS_BY_KIND, SETTINGS_BY_KIND, type JsonSchema } from './integration-settings.js';
import { RECIPIENT_KEYS, RULE_KEYS } from './alarms.js';
import type { TOP_LEVEL_KEYS} from './validate.js';
import {
  DEVICE_KEYS, GROUP_KEYS, INTEGRATION_KEYS, MAX_SECTION_CUSTOMERS, MAX_SECTION_LENGTH_KM, MIN_PASSWORD_LENGTH, ORGANIZATION_KEYS, POWER_LINE_KEYS, PROFILE_NUMBER_MAX, PROFILE_TEXT_MAX, USER_KEYS,
} from './validate.js';

// Control characters spelled out (Cc = U+0000-001F, U+007F-009F): a pattern without \p{}, so validators that
// compile patterns without the `u` flag read it the same.
const CC = '\\u0000-\\u001f\\u007f-\\u009f';
const ID: JsonSchema = { type: 'string', minLength: 1, maxLength: MAX_ID_LENGTH, pattern: `^[^\\s${CC}](?:[^${CC}]*[^\\s${CC}])?$`, description: 'an identifier: no surrounding spaces, no control characters' };
const OPTIONAL_ID: JsonSchema = { ...ID, type: ['string', 'null'] };
const ID_LIST: JsonSchema = { type: ['array', 'null'], items: ID, uniqueItems: true };
const IMEI = '^[0-9]{14,16}$';
const text = (max = MAX_TEXT_LENGTH, extra: JsonSchema = {}): JsonSchema => ({ type: ['string', 'null'], minLength: 1, maxLength: max, ...extra });
const required = (schema: JsonSchema): JsonSchema => ({ ...schema, type: (schema.type as string[]).filter((t) => t !== 'null')[0] });
const TIMEZONE = text(100, { description: 'an IANA time zone such as "America/Chicago" (checked against the runtime\'s zone list); absent: UTC' });
const number = (min: number, max: number, integer = false): JsonSchema => ({ type: [integer ? 'integer' : 'number', 'null'], minimum: min, maximum: max });

/** An object with exactly `keys` (the validator refuses any other field). */
function row(keys: readonly string[], properties: Record<string, JsonSchema>, requiredKeys: string[], extra: JsonSchema = {}): JsonSchema {
  const missing = keys.filter((k) => !properties[k]);
  const unknown = Object.keys(properties).filter((k) => !keys.includes(k));
  if (missing.length || unknown.length) throw new Error(`import schema out of step with the validator: missing ${missing.join(', ')}; unknown ${unknown.join(', ')}`);
  return { type: 'object', additionalProperties: false, required: requiredKeys, properties, ...extra };
}

const organization = row(ORGANIZATION_KEYS, {
  OrganizationID: ID, name: required(text()), MaskFaultDetails: { type: 'boolean', default: false }, timezone: TIMEZONE,
  RecurringSectionIncidents: { ...number(RECURRING_SECTION_BOUNDS.incidents.min, RECURRING_SECTION_BOUNDS.incidents.max, true), description: `hot spots: this many incidents in one section within RecurringSectionDays raise recurring-section; absent: ${DEFAULT_RECURRING_SECTION.incidents}` },
  RecurringSectionDays: { ...number(RECURRING_SECTION_BOUNDS.days.min, RECURRING_SECTION_BOUNDS.days.max, true), description: `hot spots: the window in days; absent: ${DEFAULT_RECURRING_SECTION.days}` },
}, ['OrganizationID', 'name']);

const powerLine = row(POWER_LINE_KEYS, { Id: ID, OrganizationID: ID, name: text() }, ['Id', 'OrganizationID']);
const group = row(GROUP_KEYS, {
  GroupID: ID, OrganizationID: ID, name: text(),
  // The group profile (settings drift): each setting optional, null or absent: not checked.
  ...Object.fromEntries(DRIFT_SETTINGS.map((d) => [d.profile, d.type === 'number'
    ? { ...number(0, PROFILE_NUMBER_MAX), description: `group profile: the ${d.setting} its devices should report; absent: not checked` }
    : text(PROFILE_TEXT_MAX, { description: `group profile: the ${d.setting} its devices should report; absent: not checked` })])),
}, ['GroupID', 'OrganizationID']);

const device = row(DEVICE_KEYS, {
  IMEINumber: { type: 'string', pattern: IMEI, description: '14 to 16 digits' },
  OrganizationID: ID,
  PowerLineID: OPTIONAL_ID,
  Real_Name: text(),
  Lat: number(-90, 90),
  Long: number(-180, 180),
  serialNumber: text(100),
  groups: { ...ID_LIST, description: 'exactly the device\'s groups after the import' },
  dnp3QueueAddress: text(249, { pattern: '^[A-Za-z0-9._-]{1,249}$', description: 'a Kafka topic name' }),
  UpstreamIMEI: text(500, { pattern: IMEI, description: 'the indicator directly upstream on the feeder' }),
  Phase: { enum: [...PHASES, null] },
  Section: text(200),
  SectionCustomers: { ...number(0, MAX_SECTION_CUSTOMERS, true), description: 'customers supplied by the section below the indicator (reliability estimates)' },
  SectionLengthKm: { ...number(0, MAX_SECTION_LENGTH_KM), description: 'length in km of the section below the indicator (rates per 100 km)' },
  deleted: { type: 'boolean', default: false, description: 'true: soft delete (kept, hidden)' },
}, ['IMEINumber', 'OrganizationID']);

const user = row(USER_KEYS, {
  email: { type: 'string', minLength: 1, maxLength: 254, pattern: '^[^\\s@]+@[^\\s@]+$' },
  password: text(1024, { minLength: MIN_PASSWORD_LENGTH, description: 'absent or null: keep the stored hash (a new user needs one)' }),
  OrganizationID: ID,
  role: { enum: ['admin', 'user'] },
  timezone: TIMEZONE,
  groups: ID_LIST,
  deleted: { type: 'boolean', default: false, description: 'true: soft delete' },
}, ['email', 'OrganizationID', 'role']);

/** One integration kind: its channels, its settings (from their readers) and, for MultiSpeak, the credentials. */
function integration(kind: IntegrationKind): JsonSchema {
  const settings = Object.entries(SETTINGS_BY_KIND[kind]);
  const credentials: Record<string, JsonSchema> = kind === 'multispeak'
    ? { userId: text(256, { description: 'with password; both null: remove; both absent: keep the stored ones' }), password: text(1024) } : {};
  const keys = [...INTEGRATION_KEYS, ...settings.map(([key]) => key), ...Object.keys(credentials)];
  return row(keys, {
    id: ID, OrganizationID: ID, kind: { const: kind }, channel: { enum: [...CHANNELS_BY_KIND[kind]] }, enabled: { type: 'boolean', default: true },
    ...Object.fromEntries(settings.map(([key, read]) => [key, read.schema])),
    ...credentials,
  }, ['id', 'OrganizationID', 'kind', 'channel', ...settings.filter(([, read]) => read.required).map(([key]) => key)],
  kind === 'multispeak' ? {
    dependencies: { userId: ['password'], password: ['userId'] },
    // notifyPer "incident" only with an operation that can name a faulted section.
    if: { properties: { notifyPer: { const: 'incident' } }, required: ['notifyPer'] },
    then: { properties: { operation: { enum: ['ODEventNotification', 'AssessmentLocationChangedNotification'] } } },
  } : {});
}

/** Discriminated by `kind` (if/then rather than oneOf, so a wrong row gets its kind's errors only). */
function integrations(): JsonSchema {
  const kinds = Object.keys(SETTINGS_BY_KIND) as IntegrationKind[];
  return {
    type: 'object', required: ['kind'], properties: { kind: { enum: kinds } },
    allOf: kinds.map((kind) => ({ if: { properties: { kind: { const: kind } }, required: ['kind'] }, then: integration(kind) })),
  };
}

const recipient = row(RECIPIENT_KEYS, {
  id: ID, OrganizationID: ID, name: text(),
  channel: { enum: ['email', 'sms', 'webhook'] },
  address: { type: 'string', minLength: 1, maxLength: 2000, description: 'email: an address; sms: digits with an optional leading +; webhook: an http(s) URL (private ranges only with ALARM_WEBHOOK_ALLOW)' },
  capPerDay: number(1, 100_000, true),
  secret: text(500, { minLength: 16, description: 'webhook only: the signing secret; absent: keep the stored one; null: none' }),
  fleetDigest: { enum: [...FLEET_DIGEST_EVERY, null], description: 'a daily or weekly fleet health digest (e-mail and webhook recipients); absent or null: none' },
}, ['id', 'OrganizationID', 'channel', 'address'], {
  allOf: [
    { if: { properties: { channel: { const: 'sms' } } }, then: { properties: { fleetDigest: { type: 'null' } } } },
    { if: { properties: { channel: { const: 'email' } } }, then: { properties: { address: { type: 'string', pattern: '^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$' } } } },
    { if: { properties: { channel: { const: 'sms' } } }, then: { properties: { address: { type: 'string', pattern: '^\\+?[0-9]{6,16}$' } } } },
    { if: { properties: { channel: { const: 'webhook' } } }, then: { properties: { address: { type: 'string', pattern: '^[Hh][Tt][Tt][Pp][Ss]?://' } } }, else: { properties: { secret: { type: 'null' } } } },
  ],
});

const HOUR = { type: 'string', pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$' };
const rule = row(RULE_KEYS, {
  id: ID, OrganizationID: ID, name: text(),
  class: { enum: [...ALARM_CLASSES] },
  what: { type: 'array', minItems: 1, uniqueItems: true, items: { enum: [...RULE_KIND_IDS, ...Object.keys(RETIRED_KINDS)] } },
  where: {
    type: ['object', 'null'], additionalProperties: false,
    properties: { powerLines: ID_LIST, groups: ID_LIST, devices: ID_LIST },
  },
  who: { type: 'array', minItems: 1, uniqueItems: true, items: ID, description: 'recipient ids' },
  when: {
    description: '"always", null or absent: every hour; else the days (1 Monday .. 7 Sunday) and the hours',
    oneOf: [
      { enum: ['always', null] },
      {
        type: 'object', additionalProperties: false, required: ['from', 'to'],
        properties: { days: { type: 'array', minItems: 1, items: { type: 'integer', minimum: 1, maximum: 7 } }, from: HOUR, to: HOUR },
      },
    ],
  },
  escalation: {
    oneOf: [
      { type: 'null' },
      {
        type: 'object', additionalProperties: false, required: ['afterMinutes', 'roster'],
        properties: { afterMinutes: { type: 'integer', minimum: 1, maximum: 10_080 }, roster: { type: 'array', minItems: 1, uniqueItems: true, items: ID } },
      },
    ],
  },
  enabled: { type: 'boolean', default: true },
}, ['id', 'OrganizationID', 'class', 'what', 'who'], {
  // Only operations rules escalate.
  if: { properties: { class: { const: 'maintenance' } }, required: ['class'] },
  then: { properties: { escalation: { type: 'null' } } },
});

const section = (items: JsonSchema): JsonSchema => ({ type: ['array', 'null'], items });
const SECTIONS: Record<(typeof TOP_LEVEL_KEYS)[number], JsonSchema> = {
  organizations: section(organization),
  powerLines: section(powerLine),
  groups: section(group),
  devices: section(device),
  users: section(user),
  integrations: section(integrations()),
  alarmRecipients: section(recipient),
  alarmRules: section(rule),
};

export function importSchema(): JsonSchema {
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $id: 'https://faultline.invalid/schemas/import.schema.json',
    title: 'faultline import file',
    description: 'The file `faultline import [--dry-run] <file.json>` reads (docs/integration.md#the-import-file). Every section is optional; '
      + 'a row describes the whole row (absent optional fields are stored as null), except secrets, which absent means keep. '
      + 'faultline also checks what this schema cannot: time zones, webhook targets, duplicates by key, references to rows in the file or the database, and the feeder topology.',
    type: 'object',
    additionalProperties: false,
    properties: SECTIONS,
  };
}
