// An integration as the worker sends to it: its settings with their defaults applied (multispeak/integration.ts)
// and checked, read once per cache period. Credentials stay ciphertext until the send.
import { readFileSync } from 'node:fs';
import type pg from 'pg';
import { readIntegrations } from '../../integrations/store.js';
import { multiSpeakSettings, type MultiSpeakSettings } from '../integration.js';
import { isOperation, type Operation } from '../operations.js';
import { isVersion, type Version } from '../versions.js';
import { DeliveryError } from './errors.js';

import type { TlsFiles } from '../../outbox/http-post.js';

export type { TlsFiles };

export interface Target {
  id: string;
  organizationId: string;
  company: string;
  channel: string;
  endpoint: string;
  operation: Operation;
  version: Version;
  timeoutMs: number;
  connectTimeoutMs: number;
  maxAgeMs: number;
  resyncAfterOutage: boolean;
  tls: TlsFiles;
  credentials: { ciphertext: Buffer; keyId: string } | null;
}

const file = (path: unknown, what: string, id: string): Buffer | undefined => {
  if (typeof path !== 'string' || path === '') return undefined;
  try {
    return readFileSync(path);
  } catch (err) {
    throw new DeliveryError('BAD_INTEGRATION', `integration "${id}": ${what} ${path} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
};

function toTarget(s: MultiSpeakSettings): Target {
  if (typeof s.endpoint !== 'string') throw new DeliveryError('BAD_INTEGRATION', `integration "${s.id}" has no endpoint`);
  if (!isOperation(s.operation)) throw new DeliveryError('BAD_INTEGRATION', `integration "${s.id}": operation ${String(s.operation)} is not one faultline sends`);
  if (!isVersion(s.version)) throw new DeliveryError('BAD_INTEGRATION', `integration "${s.id}": version ${String(s.version)} is not 3.0 or 4.1`);
  return {
    id: s.id, organizationId: s.OrganizationID, company: s.company, channel: s.channel, endpoint: s.endpoint, operation: s.operation, version: s.version,
    timeoutMs: s.timeoutMs, connectTimeoutMs: s.connectTimeoutMs, maxAgeMs: s.maxAgeHours * 3_600_000, resyncAfterOutage: s.resyncAfterOutage,
    tls: { ca: file(s.caFile, 'caFile', s.id), cert: file(s.clientCertFile, 'clientCertFile', s.id), key: file(s.clientKeyFile, 'clientKeyFile', s.id) },
    credentials: s.credentials,
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
    const [stored] = await readIntegrations(pool, { kind: 'multispeak', id, enabledOnly: false });
    let target: Target | DeliveryError;
    try {
      if (!stored) throw new DeliveryError('BAD_INTEGRATION', `integration "${id}" does not exist`);
      target = toTarget(multiSpeakSettings(stored));
    } catch (err) {
      if (!(err instanceof DeliveryError)) throw err;
      target = err;
    }
    cache.set(id, { at: Date.now(), target });
    if (target instanceof DeliveryError) throw target;
    return target;
  };
}
