// Validation of an import file (docs/decisions.md#import-format): `unknown` in, typed model out, every
// problem listed with its path. Pure: the rows already in the database arrive as `ExistingRefs`.
//
// Decisions (docs/pipeline.md#import-decisions-faultline-import):
// - Unknown fields are refused, not ignored: a typo such as `Real_name` would otherwise store null over the
//   real name, since a row in the file describes the whole row.
// - Absent optional fields mean null / the default (the file is the truth for the rows it lists), except
//   secrets: an absent user password or integration userId/password keeps what is stored, so files can be
//   versioned without plaintext secrets.
import { RECURRING_SECTION_BOUNDS } from '../domain/recurring-section.js';
import { CHANNELS_BY_KIND, readSettings, SETTINGS_BY_KIND } from './integration-settings.js';
import { eachObject, isPlainObject, ProblemList, show, type FieldReader } from './field-reader.js';
import type { Problem } from './errors.js';
import { readAlarmRecipient, readAlarmRule, type AlarmReadOptions } from './alarms.js';
import type { IntegrationKind } from '../integrations/store.js';
import type { DeviceInput, GroupInput, ImportData, IntegrationInput, OrganizationInput, PowerLineInput, UserInput } from './model.js';
import { checkReferences, type DeclaredKeys, type ExistingRefs, NO_EXISTING_REFS, type PathOf } from './references.js';
import { checkImportTopology } from './topology.js';
import { PHASES } from '../domain/feeder-topology.js';
import { DRIFT_SETTINGS } from '../fleet/settings-drift.js';

export const TOP_LEVEL_KEYS = ['organizations', 'powerLines', 'groups', 'devices', 'users', 'integrations', 'alarmRecipients', 'alarmRules'] as const;
export const ORGANIZATION_KEYS = ['OrganizationID', 'name', 'MaskFaultDetails', 'timezone', 'RecurringSectionIncidents', 'RecurringSectionDays'];
export const POWER_LINE_KEYS = ['Id', 'OrganizationID', 'name'];
export const GROUP_KEYS = ['GroupID', 'OrganizationID', 'name', ...DRIFT_SETTINGS.map((d) => d.profile)];
/** Bounds of a group profile's text and number settings (docs/decisions.md#settings-drift). */
export const PROFILE_TEXT_MAX = 100;
export const PROFILE_NUMBER_MAX = 100_000;
export const DEVICE_KEYS = ['IMEINumber', 'OrganizationID', 'PowerLineID', 'Real_Name', 'Lat', 'Long', 'serialNumber', 'groups', 'dnp3QueueAddress', 'UpstreamIMEI', 'Phase', 'Section', 'SectionCustomers', 'SectionLengthKm', 'deleted'];
export const USER_KEYS = ['email', 'password', 'OrganizationID', 'role', 'timezone', 'groups', 'deleted'];
export const INTEGRATION_KEYS = ['id', 'OrganizationID', 'kind', 'channel', 'enabled'];
export const CREDENTIAL_KEYS = ['userId', 'password'];
// The operations that can name a faulted section (incidents/notifications.ts).
const INCIDENT_OPERATIONS = ['ODEventNotification', 'AssessmentLocationChangedNotification'];

const IMEI = /^\d{14,16}$/;
const EMAIL = /^[^\s@]+@[^\s@]+$/;
// Kafka topic names: the address names a topic (docs/decisions.md#dnp3-json-output).
const TOPIC = /^[A-Za-z0-9._-]{1,249}$/;
export const MIN_PASSWORD_LENGTH = 8;
/** Bounds of a section's optional reliability facts: a section is one stretch of one feeder. */
export const MAX_SECTION_CUSTOMERS = 1_000_000;
export const MAX_SECTION_LENGTH_KM = 10_000;
const MAX_PASSWORD_LENGTH = 1024;

const zoneCache = new Map<string, boolean>();
/** IANA zone names as the runtime's ICU knows them (`Intl` throws RangeError on anything else). */
export function isTimeZone(zone: string): boolean {
  let known = zoneCache.get(zone);
  if (known === undefined) {
    try {
      new Intl.DateTimeFormat(undefined, { timeZone: zone });
      known = true;
    } catch {
      known = false;
    }
    zoneCache.set(zone, known);
  }
  return known;
}

function timezone(r: FieldReader, key: string): string | null | undefined {
  const zone = r.string(key, { max: 100 });
  if (typeof zone === 'string' && !isTimeZone(zone)) {
    r.list.add(r.at(key), `${show(zone)} is not an IANA time zone (e.g. "America/Chicago")`);
    return undefined;
  }
  return zone;
}

function readOrganization(r: FieldReader): OrganizationInput | undefined {
  r.onlyKeys(ORGANIZATION_KEYS);
  const OrganizationID = r.id('OrganizationID');
  const name = r.string('name', { required: true });
  const MaskFaultDetails = r.boolean('MaskFaultDetails', false);
  const zone = timezone(r, 'timezone');
  // The hot-spot rule (domain/recurring-section.ts); null: its defaults.
  const RecurringSectionIncidents = r.number('RecurringSectionIncidents', { ...RECURRING_SECTION_BOUNDS.incidents, integer: true });
  const RecurringSectionDays = r.number('RecurringSectionDays', { ...RECURRING_SECTION_BOUNDS.days, integer: true });
  if (OrganizationID === undefined || name === undefined || MaskFaultDetails === undefined || zone === undefined
    || RecurringSectionIncidents === undefined || RecurringSectionDays === undefined) return undefined;
  return { OrganizationID, name, MaskFaultDetails, timezone: zone ?? 'UTC', RecurringSectionIncidents, RecurringSectionDays };
}

function readPowerLine(r: FieldReader): PowerLineInput | undefined {
  r.onlyKeys(POWER_LINE_KEYS);
  const Id = r.id('Id');
  const OrganizationID = r.id('OrganizationID');
  const name = r.string('name');
  if (Id === undefined || OrganizationID === undefined || name === undefined) return undefined;
  return { Id, OrganizationID, name };
}

function readGroup(r: FieldReader): GroupInput | undefined {
  r.onlyKeys(GROUP_KEYS);
  const GroupID = r.id('GroupID');
  const OrganizationID = r.id('OrganizationID');
  const name = r.string('name');
  // The optional profile: absent or null, that setting is not checked.
  const profile = Object.fromEntries(DRIFT_SETTINGS.map((d) => [d.profile, d.type === 'number'
    ? r.number(d.profile, { min: 0, max: PROFILE_NUMBER_MAX })
    : r.string(d.profile, { max: PROFILE_TEXT_MAX })])) as GroupInput['profile'];
  if (GroupID === undefined || OrganizationID === undefined || name === undefined || Object.values(profile).some((v) => v === undefined)) return undefined;
  return { GroupID, OrganizationID, name, profile };
}

function readDevice(r: FieldReader): DeviceInput | undefined {
  r.onlyKeys(DEVICE_KEYS);
  const d = {
    IMEINumber: r.string('IMEINumber', { required: true, pattern: IMEI, patternText: '14 to 16 digits' }),
    OrganizationID: r.id('OrganizationID'),
    PowerLineID: r.optionalId('PowerLineID'),
    Real_Name: r.string('Real_Name'),
    Lat: r.number('Lat', { min: -90, max: 90 }),
    Long: r.number('Long', { min: -180, max: 180 }),
    serialNumber: r.string('serialNumber', { max: 100 }),
    dnp3QueueAddress: r.string('dnp3QueueAddress', { max: 249, pattern: TOPIC, patternText: 'a topic name (letters, digits, . _ -)' }),
    UpstreamIMEI: r.string('UpstreamIMEI', { pattern: IMEI, patternText: '14 to 16 digits' }),
    Phase: r.oneOf('Phase', PHASES, false),
    Section: r.string('Section', { max: 200 }),
    SectionCustomers: r.number('SectionCustomers', { min: 0, max: MAX_SECTION_CUSTOMERS, integer: true }),
    SectionLengthKm: r.number('SectionLengthKm', { min: 0, max: MAX_SECTION_LENGTH_KM }),
    groups: r.idList('groups'),
    deleted: r.boolean('deleted', false),
  };
  if (Object.values(d).some((v) => v === undefined)) return undefined;
  return d as DeviceInput;
}

function readUser(r: FieldReader): UserInput | undefined {
  r.onlyKeys(USER_KEYS);
  const u = {
    email: r.string('email', { required: true, max: 254, pattern: EMAIL, patternText: 'an email address' }),
    password: r.string('password', { max: MAX_PASSWORD_LENGTH, secret: true }),
    OrganizationID: r.id('OrganizationID'),
    role: r.oneOf('role', ['admin', 'user'] as const, true),
    timezone: timezone(r, 'timezone'),
    groups: r.idList('groups'),
    deleted: r.boolean('deleted', false),
  };
  if (typeof u.password === 'string' && u.password.length < MIN_PASSWORD_LENGTH) {
    r.list.add(r.at('password'), `must be at least ${MIN_PASSWORD_LENGTH} characters`);
    return undefined;
  }
  if (u.role === 'admin' && u.groups && u.groups.length > 0) {
    r.list.warn(r.at('groups'), 'an admin reaches every device of the organization; the groups are stored but do not limit access');
  }
  if (Object.values(u).some((v) => v === undefined)) return undefined;
  return u as UserInput;
}

function readCredentials(r: FieldReader): IntegrationInput['credentials'] | undefined {
  const given = CREDENTIAL_KEYS.filter((k) => Object.hasOwn(r.obj, k));
  if (given.length === 0) return 'keep';
  if (given.length === 1) {
    r.list.add(r.at(given[0] === 'userId' ? 'password' : 'userId'), 'userId and password go together: give both, or neither to keep the stored ones');
    return undefined;
  }
  if (r.obj.userId === null && r.obj.password === null) return null;
  const userId = r.string('userId', { required: true, max: 256, secret: true });
  const password = r.string('password', { required: true, max: MAX_PASSWORD_LENGTH, secret: true });
  if (userId === undefined || password === undefined || userId === null || password === null) return undefined;
  return { userId, password };
}

function readIntegration(r: FieldReader): IntegrationInput | undefined {
  const id = r.id('id');
  const OrganizationID = r.id('OrganizationID');
  const kind = r.oneOf('kind', Object.keys(SETTINGS_BY_KIND) as IntegrationKind[], true);
  const enabled = r.boolean('enabled', true);
  if (!kind) {
    r.oneOf('channel', ['A', 'B', 'C', 'D'] as const, true);
    return undefined;
  }
  const secretKeys = kind === 'multispeak' ? CREDENTIAL_KEYS : [];
  r.onlyKeys([...INTEGRATION_KEYS, ...Object.keys(SETTINGS_BY_KIND[kind]), ...secretKeys]);
  const channel = r.oneOf('channel', CHANNELS_BY_KIND[kind], true);
  const settings = readSettings(r, kind);
  // DNP3 authenticates by client certificate: no credentials, and none left over from an earlier kind.
  const credentials = kind === 'multispeak' ? readCredentials(r) : null;
  if (settings && settings.checkins !== undefined && settings.operation !== 'SCADAAnalogChangedNotificationByPointID') {
    r.list.warn(r.at('checkins'), 'check-in notifications are only sent by SCADAAnalogChangedNotificationByPointID integrations');
  }
  if (settings && settings.notifyPer === 'incident' && !INCIDENT_OPERATIONS.includes(String(settings.operation))) {
    r.list.add(r.at('notifyPer'), `"incident" needs operation ${INCIDENT_OPERATIONS.join(' or ')}`);
    return undefined;
  }
  if (id === undefined || OrganizationID === undefined || !channel || enabled === undefined || !settings || credentials === undefined) return undefined;
  return { id, OrganizationID, kind, channel, enabled, settings, credentials };
}

/** Raw key values of a top-level array, for duplicate and reference checks that must see invalid rows too. */
function rawRows(input: Record<string, unknown>, name: string): Record<string, unknown>[] {
  const value = input[name];
  return Array.isArray(value) ? value.map((v: unknown) => (isPlainObject(v) ? v : {})) : [];
}

function findDuplicates(input: Record<string, unknown>, list: ProblemList): void {
  const keys: [string, string, (v: string) => string][] = [
    ['organizations', 'OrganizationID', (v) => v], ['powerLines', 'Id', (v) => v], ['groups', 'GroupID', (v) => v],
    ['devices', 'IMEINumber', (v) => v], ['users', 'email', (v) => v.toLowerCase()], ['integrations', 'id', (v) => v],
    ['alarmRecipients', 'id', (v) => v], ['alarmRules', 'id', (v) => v],
  ];
  for (const [name, key, normal] of keys) {
    const seen = new Map<string, number>();
    rawRows(input, name).forEach((row, i) => {
      const value = row[key];
      if (typeof value !== 'string') return;
      const first = seen.get(normal(value));
      if (first === undefined) seen.set(normal(value), i);
      else list.add(`${name}[${i}].${key}`, `${show(value)} is already ${name}[${first}].${key}; each ${key} may appear once`);
    });
  }
}

function declaredKeys(input: Record<string, unknown>): DeclaredKeys {
  const org = (row: Record<string, unknown>) => (typeof row.OrganizationID === 'string' ? row.OrganizationID : null);
  const declared: DeclaredKeys = { organizations: new Set(), powerLines: new Map(), groups: new Map() };
  for (const row of rawRows(input, 'organizations')) if (typeof row.OrganizationID === 'string') declared.organizations.add(row.OrganizationID);
  for (const row of rawRows(input, 'powerLines')) if (typeof row.Id === 'string') declared.powerLines.set(row.Id, org(row));
  for (const row of rawRows(input, 'groups')) if (typeof row.GroupID === 'string') declared.groups.set(row.GroupID, org(row));
  return declared;
}

export interface ParsedImport {
  /** The rows that passed; complete only when `problems` is empty. */
  data: ImportData;
  declared: DeclaredKeys;
  /** Where a row of `data` was in the file (`devices[5]`). */
  pathOf: PathOf;
  problems: Problem[];
  warnings: Problem[];
}

/** Shape, formats and duplicates inside the file; no references yet (they may need the database). */
export function parseImport(input: unknown, alarmOptions: AlarmReadOptions = { webhookAllow: [] }): ParsedImport {
  const list = new ProblemList();
  const paths = new WeakMap<object, string>();
  const pathOf: PathOf = (kind, row, index) => paths.get(row) ?? `${kind}[${index}]`;
  const empty: ImportData = { organizations: [], powerLines: [], groups: [], devices: [], users: [], integrations: [], alarmRecipients: [], alarmRules: [] };
  if (!isPlainObject(input)) {
    list.add('(file)', `must be a JSON object with ${TOP_LEVEL_KEYS.join(', ')}`);
    return { data: empty, declared: { organizations: new Set(), powerLines: new Map(), groups: new Map() }, pathOf, problems: list.problems, warnings: list.warnings };
  }
  for (const key of Object.keys(input)) {
    if (!(TOP_LEVEL_KEYS as readonly string[]).includes(key)) list.add(key, `unknown section; expected ${TOP_LEVEL_KEYS.join(', ')}`);
  }
  const data: ImportData = {
    organizations: eachObject(input.organizations, 'organizations', list, readOrganization, paths),
    powerLines: eachObject(input.powerLines, 'powerLines', list, readPowerLine, paths),
    groups: eachObject(input.groups, 'groups', list, readGroup, paths),
    devices: eachObject(input.devices, 'devices', list, readDevice, paths),
    users: eachObject(input.users, 'users', list, readUser, paths),
    integrations: eachObject(input.integrations, 'integrations', list, readIntegration, paths),
    alarmRecipients: eachObject(input.alarmRecipients, 'alarmRecipients', list, (r) => readAlarmRecipient(r, alarmOptions), paths),
    alarmRules: eachObject(input.alarmRules, 'alarmRules', list, readAlarmRule, paths),
  };
  findDuplicates(input, list);
  return { data, declared: declaredKeys(input), pathOf, problems: list.problems, warnings: list.warnings };
}

export type ValidationResult =
  | { ok: true; data: ImportData; warnings: Problem[] }
  | { ok: false; problems: Problem[]; warnings: Problem[] };

/**
 * The whole check: shape, formats, duplicates, and references against the file plus `existing` (what the
 * database holds; none by default).
 *
 * @example
 *   const r = validateImport(JSON.parse(text));
 *   if (!r.ok) for (const p of r.problems) console.error(`${p.path}: ${p.message}`);
 */
export function validateImport(input: unknown, existing: ExistingRefs = NO_EXISTING_REFS): ValidationResult {
  const parsed = parseImport(input);
  const problems = [...parsed.problems, ...checkReferences(parsed.data, parsed.declared, existing, parsed.pathOf), ...checkImportTopology(parsed.data.devices, [], parsed.pathOf)];
  return problems.length > 0 ? { ok: false, problems, warnings: parsed.warnings } : { ok: true, data: parsed.data, warnings: parsed.warnings };
}
