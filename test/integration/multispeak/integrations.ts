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
  // The product's own timeouts (multispeak/integration.ts DEFAULTS) unless a suite sets shorter ones to test them:
  // a late answer is retried and so delivered twice (at least once), and a 1 s timeout made "delivered once"
  // depend on how loaded the machine was while the zeep OMS parsed 80 envelopes.
  const settings = { endpoint: i.endpoint, operation: i.operation, version: i.version, ...i.settings };
  await pool.query(
    `insert into integrations (id, "OrganizationID", kind, channel, settings, credentials, credentials_key_id)
     values ($1, 'north', 'multispeak', $2, $3, $4, $5)`,
    [i.id, i.channel ?? 'C', JSON.stringify(settings), ciphertext, keyId],
  );
}
