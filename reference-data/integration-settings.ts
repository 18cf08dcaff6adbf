// The non-secret settings of an integration, per kind: which keys exist and what each accepts. They are
// stored as given in `integrations.settings`; consumers (notify stage, MultiSpeak sender, DNP3 and IEC 104 servers) apply
// defaults. `userId` and `password` are not settings: they go encrypted into `credentials` only.
import type { FieldReader } from './field-reader.js';
import type { IntegrationKind } from '../integrations/store.js';
import { OPERATIONS } from '../multispeak/operations.js';

export type JsonSchema = Record<string, unknown>;

type SettingValue = string | number | boolean;
/** Reads one setting; `schema` is the same rule in JSON Schema (reference-data/import-schema.ts). */
type SettingReader = ((r: FieldReader, key: string) => SettingValue | null | undefined) & { schema: JsonSchema; required?: true };
const reader = (read: (r: FieldReader, key: string) => SettingValue | null | undefined, schema: JsonSchema): SettingReader => Object.assign(read, { schema });

export const CHANNELS_BY_KIND: Record<IntegrationKind, readonly ('A' | 'B' | 'C' | 'D')[]> = {
  dnp3: ['A', 'B'],
  iec104: ['A', 'B'],
  multispeak: ['C', 'D'],
};

const text = (max: number) => reader((r, key) => r.string(key, { max }), { type: ['string', 'null'], minLength: 1, maxLength: max });
const integer = (min: number, max: number) => reader((r, key) => r.number(key, { min, max, integer: true }), { type: ['integer', 'null'], minimum: min, maximum: max });
const flag = reader((r, key) => {
  const value = r.boolean(key, false);
  return r.has(key) ? value : null;
}, { type: 'boolean' });
const choice = (values: readonly string[]) => reader((r, key) => r.oneOf(key, values, false), { enum: [...values, null] });

/** http(s) only, and no `user:password@`: credentials belong in userId/password, where they are encrypted. */
const endpoint = reader((r, key) => {
  const value = r.string(key, { required: true, max: 2000 });
  if (typeof value !== 'string') return value;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    r.list.add(r.at(key), 'must be an absolute http:// or https:// URL');
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') { r.list.add(r.at(key), `must be http:// or https://, not ${url.protocol}`); return undefined; }
  if (url.username || url.password) { r.list.add(r.at(key), 'must not contain a user name or password; use userId and password'); return undefined; }
  return value;
}, { type: 'string', minLength: 1, maxLength: 2000, pattern: '^[Hh][Tt][Tt][Pp][Ss]?://', description: 'an absolute http:// or https:// URL without user or password' });
endpoint.required = true;

const required = (read: SettingReader): SettingReader => Object.assign(reader((r, key) => {
  if (!r.has(key)) { r.list.add(r.at(key), 'is required'); return undefined; }
  return read(r, key);
}, read.schema), { required: true as const });

// DNP3 link addresses 0xFFF0..0xFFFF are reserved for broadcast and self-address (IEEE 1815).
const LINK_ADDRESS = integer(0, 0xffef);

/** What every SCADA master integration has (DNP3, IEC 104), read by integrations/master-settings.ts. */
const MASTER_SETTINGS: Record<string, SettingReader> = {
  masterIdentity: required(text(253)),
  tlsMinVersion: choice(['1.2', '1.3']),
  certificateMode: choice(['ca', 'pinned']),
  caFile: text(1000),
  pinnedCertificateFile: text(1000),
  port: integer(1, 65_535),
  analogOnly: flag,
};

export const SETTINGS_BY_KIND: Record<IntegrationKind, Record<string, SettingReader>> = {
  multispeak: {
    endpoint,
    operation: Object.assign(reader((r, key) => r.oneOf(key, OPERATIONS, true), { enum: [...OPERATIONS] }), { required: true as const }),
    version: choice(['3.0', '4.1']),
    checkins: flag,
    timeoutMs: integer(100, 300_000),
    connectTimeoutMs: integer(100, 300_000),
    maxAgeHours: reader((r, key) => r.number(key, { min: 0.01, max: 24 * 90 }), { type: ['number', 'null'], minimum: 0.01, maximum: 24 * 90 }),
    resyncAfterOutage: flag,
    notifyPer: choice(['device', 'incident']),
    caFile: text(1000),
    clientCertFile: text(1000),
    clientKeyFile: text(1000),
  },
  dnp3: {
    ...MASTER_SETTINGS,
    outstationAddress: LINK_ADDRESS,
    masterAddress: LINK_ADDRESS,
    unsolicited: flag,
  },
  // IEC 60870-5-104 (iec104/identity.ts applies the defaults): common address of bank 0 (0 and 0xFFFF are not
  // station addresses), APCI parameters k, w and timers t0..t3 in seconds.
  iec104: {
    ...MASTER_SETTINGS,
    commonAddress: integer(1, 0xfffe),
    k: integer(1, 32_767),
    w: integer(1, 32_767),
    t0: integer(1, 255),
    t1: integer(1, 255),
    t2: integer(1, 255),
    t3: integer(1, 255),
  },
};

/** Reads the settings of `kind` from an integration object; absent keys stay absent. */
export function readSettings(r: FieldReader, kind: IntegrationKind): Record<string, SettingValue> | undefined {
  const settings: Record<string, SettingValue> = {};
  let ok = true;
  for (const [key, read] of Object.entries(SETTINGS_BY_KIND[kind])) {
    const value = read(r, key);
    if (value === undefined) ok = false;
    else if (value !== null) settings[key] = value;
  }
  return ok ? settings : undefined;
}
