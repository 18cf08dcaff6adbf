// Loads test/fixtures/import.json into a test database, with a fixed test key for the credentials.
import type pg from 'pg';
import { importReferenceData } from '../reference-data/index.js';
import { Keyring } from '../secrets/keyring.js';
import { importFixture } from './checkins.js';

export const testKeyring = () => new Keyring([{ id: 'test', key: Buffer.alloc(32, 7) }]);

export async function importDemoData(pool: pg.Pool): Promise<void> {
  await importReferenceData(pool, importFixture(), { keyring: testKeyring() });
}
