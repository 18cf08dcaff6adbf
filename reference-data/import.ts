// `faultline import <file.json>` (docs/decisions.md#import-format): validate everything, then write in one
// transaction in dependency order. Idempotent: a row is written only when a value differs, so importing
// the same file twice changes nothing, not even updated_at. `planImport` (`faultline import --dry-run`) runs
// the very same import and rolls it back, so what it reports is what the import would do (docs/decisions.md#import-dry-run).
import type pg from 'pg';
import { withRolledBackTransaction, withTransaction } from '../db/transaction.js';
import type { Keyring } from '../secrets/keyring.js';
import { ImportError, type Problem } from './errors.js';
import { loadExistingRefs } from './existing-refs.js';
import { checkParentsLeft } from './parents-left.js';
import type { ImportCounts, Kind } from './model.js';
import { checkReferences, referencedKeys } from './references.js';
import { upsertDeviceChunk } from './upsert-devices.js';
import { upsertGroups, upsertOrganizations, upsertPowerLines } from './upsert-hierarchy.js';
import { upsertIntegrations } from './upsert-integrations.js';
import { checkMasterClaims } from './master-claims.js';
import type { PortRange } from '../config/settings.js';
import { upsertUserChunk } from './upsert-users.js';
import { parseImport, type ParsedImport } from './validate.js';
import { checkAlarmReferences, upsertAlarmRecipients, upsertAlarmRules } from './alarms.js';
import type { WebhookAllowance } from '../config/settings.js';
import { checkImportTopology, loadTopology } from './topology.js';

/** Two imports at once would each validate against a database the other is changing: one waits. */
export const IMPORT_LOCK = 0x66696d70; // "fimp"

export interface ImportProgress { kind: Kind; done: number; total: number }

export interface ImportOptions {
  /** Needed when the file carries integration credentials. */
  keyring?: Keyring;
  /** After each chunk of devices and users, and after each other kind. */
  onProgress?: (progress: ImportProgress) => void;
  /** Findings that do not stop the import (e.g. groups on an admin). Never carries a secret. */
  onWarning?: (warning: Problem) => void;
  /** Private ranges alarm webhooks may reach (ALARM_WEBHOOK_ALLOW); default none. */
  webhookAllow?: readonly WebhookAllowance[];
  /** Devices and users per multi-row statement (default 1,000). */
  chunkSize?: number;
  /** SCADA_DEDICATED_PORTS: a dnp3 or iec104 integration's `port` outside is refused (reference-data/master-claims.ts); absent: any port. */
  dedicatedPorts?: PortRange;
}

function missingKeyProblems(parsed: ParsedImport, keyring: Keyring | undefined): Problem[] {
  if (keyring) return [];
  return parsed.data.integrations.flatMap((row, i) => (row.credentials !== null && row.credentials !== 'keep'
    ? [{ path: `${parsed.pathOf('integrations', row, i)}.password`, message: 'credentials need a secret key: set FAULTLINE_SECRET_KEYS or FAULTLINE_SECRET_KEY_FILE' }]
    : []));
}

function missingAlarmKeyProblems(parsed: ParsedImport, keyring: Keyring | undefined): Problem[] {
  if (keyring) return [];
  return parsed.data.alarmRecipients.flatMap((row, i) => (typeof row.secret === 'string' && row.secret !== 'keep'
    ? [{ path: `${parsed.pathOf('alarmRecipients', row, i)}.secret`, message: 'a secret needs a secret key: set FAULTLINE_SECRET_KEYS or FAULTLINE_SECRET_KEY_FILE' }]
    : []));
}

async function inChunks<T>(rows: readonly T[], size: number, write: (chunk: readonly T[]) => Promise<ImportCounts[Kind]>, progress: (done: number) => void): Promise<ImportCounts[Kind]> {
  const total = { inserted: 0, updated: 0, unchanged: 0 };
  for (let at = 0; at < rows.length; at += size) {
    const c = await write(rows.slice(at, at + size));
    total.inserted += c.inserted; total.updated += c.updated; total.unchanged += c.unchanged;
    progress(Math.min(at + size, rows.length));
  }
  return total;
}

/**
 * Validates `data` (the parsed file, still `unknown`) and upserts it. Any problem: `ImportError`
 * `IMPORT_INVALID` listing all of them, and nothing written.
 *
 * @example
 *   const counts = await importReferenceData(pool, await readImportFile(path), { keyring, onProgress: (p) => log(p) });
 *   // counts.devices = { inserted: 16, updated: 0, unchanged: 0 }
 */
export async function importReferenceData(pool: pg.Pool, data: unknown, options: ImportOptions = {}): Promise<ImportCounts> {
  const parsed = parseImport(data, { webhookAllow: options.webhookAllow ?? [] });
  return withTransaction(pool, (client) => applyImport(client, parsed, options));
}

/** What an import would change: its counts, and how many of the updated rows are soft deletes (`deleted: true`). */
export interface ImportPlan {
  counts: ImportCounts;
  /** Stored, not yet deleted rows the file marks `deleted: true` (counted among `updated` too). */
  deleting: Record<'devices' | 'users', number>;
}

/**
 * `importReferenceData` in a transaction that is always rolled back: the same validation (an `ImportError`
 * when the file is wrong) and the counts it would give, and no row changed.
 *
 * @example
 *   const { counts, deleting } = await planImport(pool, await readImportFile(path), { keyring });
 */
export async function planImport(pool: pg.Pool, data: unknown, options: ImportOptions = {}): Promise<ImportPlan> {
  const parsed = parseImport(data, { webhookAllow: options.webhookAllow ?? [] });
  return withRolledBackTransaction(pool, async (client) => {
    // Counted under the lock applyImport takes (advisory transaction locks stack): an import committing meanwhile
    // would make the count disagree with the counts.
    await lockImports(client);
    const deleting = await countSoftDeletes(client, parsed.data);
    return { counts: await applyImport(client, parsed, options), deleting };
  });
}

/** One import at a time, until the transaction ends. */
async function lockImports(client: pg.PoolClient): Promise<void> {
  await client.query('select pg_advisory_xact_lock($1)', [IMPORT_LOCK]);
}

async function countSoftDeletes(client: pg.PoolClient, data: ParsedImport['data']): Promise<ImportPlan['deleting']> {
  const count = async (sql: string, keys: string[]) => (keys.length === 0 ? 0
    : Number((await client.query<{ n: string }>(sql, [keys])).rows[0]!.n));
  return {
    devices: await count('select count(*) as n from device_information where "IMEINumber" = any($1) and deleted_at is null',
      data.devices.filter((d) => d.deleted).map((d) => d.IMEINumber)),
    users: await count('select count(*) as n from users where lower(email) = any($1) and deleted_at is null',
      data.users.filter((u) => u.deleted).map((u) => u.email.toLowerCase())),
  };
}

async function applyImport(client: pg.PoolClient, parsed: ParsedImport, options: ImportOptions): Promise<ImportCounts> {
  const { keyring, onProgress = () => {}, onWarning = () => {}, chunkSize = 1000 } = options;
  await lockImports(client);
  const existing = await loadExistingRefs(client, referencedKeys(parsed.data, parsed.declared));
  const stored = parsed.problems.length === 0 ? await loadTopology(client, parsed.data.devices) : [];
  const problems = [
    ...parsed.problems, ...checkReferences(parsed.data, parsed.declared, existing, parsed.pathOf), ...missingKeyProblems(parsed, keyring),
    ...checkImportTopology(parsed.data.devices, stored, parsed.pathOf),
  ];
  problems.push(...await checkAlarmReferences(client, parsed.data.alarmRecipients, parsed.data.alarmRules, (row, i) => parsed.pathOf('alarmRules', row, i), parsed.declared.powerLines, parsed.declared.groups));
  problems.push(...missingAlarmKeyProblems(parsed, keyring));
  problems.push(...await checkParentsLeft(client, parsed.data, parsed.pathOf));
  problems.push(...await checkMasterClaims(client, parsed.data.integrations, (row, i) => parsed.pathOf('integrations', row, i), options.dedicatedPorts ? { dedicatedPorts: options.dedicatedPorts } : {}));
  if (problems.length > 0) throw new ImportError('IMPORT_INVALID', problems);
  parsed.warnings.forEach(onWarning);

  const { organizations, powerLines, groups, devices, users, integrations } = parsed.data;
  const step = async (kind: Kind, total: number, run: () => Promise<ImportCounts[Kind]>) => {
    const counts = await run();
    if (kind !== 'devices' && kind !== 'users') onProgress({ kind, done: total, total });
    return counts;
  };
  const integrationPath = new Map(integrations.map((row, i) => [row.id, parsed.pathOf('integrations', row, i)]));
  const counts: Omit<ImportCounts, 'alarmRecipients' | 'alarmRules'> & Partial<ImportCounts> = {
    organizations: await step('organizations', organizations.length, () => upsertOrganizations(client, organizations)),
    powerLines: await step('powerLines', powerLines.length, () => upsertPowerLines(client, powerLines)),
    groups: await step('groups', groups.length, () => upsertGroups(client, groups)),
    devices: await inChunks(devices, chunkSize, (c) => upsertDeviceChunk(client, c), (done) => onProgress({ kind: 'devices', done, total: devices.length })),
    users: await inChunks(users, chunkSize, (c) => upsertUserChunk(client, c), (done) => onProgress({ kind: 'users', done, total: users.length })),
    integrations: await step('integrations', integrations.length, () => upsertIntegrations(client, integrations, keyring,
      (id, message) => onWarning({ path: integrationPath.get(id) ?? `integrations[id=${id}]`, message }))),
  };
  counts.alarmRecipients = await step('alarmRecipients', parsed.data.alarmRecipients.length, () => upsertAlarmRecipients(client, parsed.data.alarmRecipients, keyring));
  counts.alarmRules = await step('alarmRules', parsed.data.alarmRules.length, () => upsertAlarmRules(client, parsed.data.alarmRules));
  return counts as ImportCounts;
}
