// Integrations for the delivery suites: written the way the importer writes them (settings jsonb,
// credentials AES-256-GCM under the test key), pointed at the loopback OMS.
import type pg from 'pg';
import { encryptCredentials } from '../../../secrets/credentials.js';
import { testKeyring } from '../../../support/reference-data.js';

export interface TestIntegration {
  id: string;
  operation: string;
  version: '3.0' | '4.1';
  endpoint: string;
  channel?: 'C' | 'D';
  settings?: Record<string, unknown>;
}

export const passwordOf = (id: string) => `pw-${id}-S3cret!`;

export async function addIntegration(pool: pg.Pool, i: TestIntegration): Promise<void> {
  const { ciphertext, keyId } = encryptCredentials(testKeyring(), i.id, { userId: `user-${i.id}`, password: passwordOf(i.id) });
  const settings = { endpoint: i.endpoint, operation: i.operation, version: i.version, timeoutMs: 1_000, connectTimeoutMs: 1_000, ...i.settings };
  await pool.query(
    `insert into integrations (id, "OrganizationID", kind, channel, settings, credentials, credentials_key_id)
     values ($1, 'north', 'multispeak', $2, $3, $4, $5)`,
    [i.id, i.channel ?? 'C', JSON.stringify(settings), ciphertext, keyId],
  );
}
