// An integration as the worker sends to it: the settings of reference-data/integration-settings.ts with
// their defaults applied, read once per cache period. Credentials stay ciphertext until the send.
import { readFileSync } from 'node:fs';
import type pg from 'pg';
import { isOperation, type Operation } from '../operations.js';
import { isVersion, type Version } from '../versions.js';
import { DeliveryError } from './errors.js';

export const DEFAULTS = { timeoutMs: 15_000, connectTimeoutMs: 5_000, maxAgeHours: 24 } as const;

export interface TlsFiles { ca?: Buffer; cert?: Buffer; key?: Buffer }

export interface Target {
  id: string;
  company: string;
  channel: string;
  endpoint: string;
  operation: Operation;
  version: Version;
  timeoutMs: number;
  connectTimeoutMs: number;
  maxAgeMs: number;
  tls: TlsFiles;
  credentials: { ciphertext: Buffer; keyId: string } | null;
}

interface Row { id: string; channel: string; settings: Record<string, unknown>; credentials: Buffer | null; credentials_key_id: string | null; company: string }

const num = (v: unknown, fallback: number) => (typeof v === 'number' && Number.isFinite(v) ? v : fallback);
const file = (path: unknown, what: string, id: string): Buffer | undefined => {
  if (typeof path !== 'string' || path === '') return undefined;
  try {
    return readFileSync(path);
  } catch (err) {
    throw new DeliveryError('BAD_INTEGRATION', `integration "${id}": ${what} ${path} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
};

function toTarget(r: Row): Target {
  const s = r.settings;
  // 4.1 unless the customer chose 3.0 (spec 6.3: the customer states the version).
  const version = s.version === undefined ? '4.1' : s.version;
  if (typeof s.endpoint !== 'string') throw new DeliveryError('BAD_INTEGRATION', `integration "${r.id}" has no endpoint`);
  if (!isOperation(s.operation)) throw new DeliveryError('BAD_INTEGRATION', `integration "${r.id}": operation ${String(s.operation)} is not one faultline sends`);
  if (!isVersion(version)) throw new DeliveryError('BAD_INTEGRATION', `integration "${r.id}": version ${String(version)} is not 3.0 or 4.1`);
  return {
    id: r.id, company: r.company, channel: r.channel, endpoint: s.endpoint, operation: s.operation, version,
    timeoutMs: num(s.timeoutMs, DEFAULTS.timeoutMs), connectTimeoutMs: num(s.connectTimeoutMs, DEFAULTS.connectTimeoutMs),
    maxAgeMs: num(s.maxAgeHours, DEFAULTS.maxAgeHours) * 3_600_000,
    tls: { ca: file(s.caFile, 'caFile', r.id), cert: file(s.clientCertFile, 'clientCertFile', r.id), key: file(s.clientKeyFile, 'clientKeyFile', r.id) },
    credentials: r.credentials && r.credentials_key_id ? { ciphertext: r.credentials, keyId: r.credentials_key_id } : null,
  };
}

/** Integrations by id, re-read after `ttlMs` so a re-import or `secrets rotate` is picked up. */
export function targetCache(pool: pg.Pool, ttlMs = 10_000): (id: string) => Promise<Target> {
  const cache = new Map<string, { at: number; target: Target | DeliveryError }>();
  return async (id) => {
    const hit = cache.get(id);
    if (hit && Date.now() - hit.at < ttlMs) {
      if (hit.target instanceof DeliveryError) throw hit.target;
      return hit.target;
    }
    const { rows } = await pool.query<Row>(
      `select i.id, i.channel, i.settings, i.credentials, i.credentials_key_id, o.name as company
         from integrations i join organizations o on o."OrganizationID" = i."OrganizationID" where i.id = $1`, [id],
    );
    let target: Target | DeliveryError;
    try {
      if (!rows[0]) throw new DeliveryError('BAD_INTEGRATION', `integration "${id}" does not exist`);
      target = toTarget(rows[0]);
    } catch (err) {
      if (!(err instanceof DeliveryError)) throw err;
      target = err;
    }
    cache.set(id, { at: Date.now(), target });
    if (target instanceof DeliveryError) throw target;
    return target;
  };
}
