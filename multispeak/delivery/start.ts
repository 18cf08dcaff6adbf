// The `delivery` component of `faultline start`: the worker with the process's keyring. Without a key the
// worker still runs (integrations without credentials deliver; the others wait, visibly, in the outbox).
import type pg from 'pg';
import { log } from '../../config/log.js';
import type { Settings } from '../../config/settings.js';
import { loadKeyring } from '../../secrets/keyring.js';
import { SecretsError } from '../../secrets/errors.js';
import type { Keyring } from '../../secrets/keyring.js';
import { startDeliveryWorker, type DeliveryWorker } from './worker.js';

export function startDelivery({ pool, settings, embedded }: { pool: pg.Pool; settings: Pick<Settings, 'dataDir' | 'secretKeys'>; embedded: boolean }): DeliveryWorker {
  let keyring: Keyring | null = null;
  try {
    keyring = loadKeyring({ configured: settings.secretKeys, dataDir: settings.dataDir, embedded, onLog: (line) => log.warn({ component: 'delivery' }, line) });
  } catch (err) {
    if (!(err instanceof SecretsError)) throw err;
    log.error({ component: 'delivery', code: err.code }, `MultiSpeak credentials cannot be decrypted: ${err.message}`);
  }
  return startDeliveryWorker({ pool, keyring });
}
