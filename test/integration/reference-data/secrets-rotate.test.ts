// `faultline secrets rotate` against real Postgres: everything ends under the current key, in one
// transaction, and a missing key changes nothing.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { randomBytes } from 'node:crypto';
import { importReferenceData } from '../../../reference-data/import.js';
import { decryptCredentials } from '../../../secrets/credentials.js';
import { SecretsError } from '../../../secrets/errors.js';
import { Keyring } from '../../../secrets/keyring.js';
import { rotateCredentials } from '../../../secrets/rotate.js';
import { createTestDatabase, type TestDatabase } from '../../../support/database.js';
import { importFixture } from '../../../support/checkins.js';

const K1 = { id: 'k1', key: randomBytes(32) };
const K2 = { id: 'k2', key: randomBytes(32) };
let db: TestDatabase;

interface Row { id: string; credentials: Buffer; k: string; updated_at: string }
const stored = async () => (await db.pool.query<Row>(
  'select id, credentials, credentials_key_id as k, updated_at::text from integrations where credentials is not null order by id',
)).rows;

test.before(async () => {
  db = await createTestDatabase('rotate');
  await importReferenceData(db.pool, importFixture(), { keyring: new Keyring([K1]) });
});
test.after(async () => { await db?.drop(); });

test('a key missing from the ring fails the whole rotation and changes nothing', async () => {
  const before = await stored();
  try {
    await rotateCredentials(db.pool, new Keyring([K2]));
    assert.unreachable('should have thrown');
  } catch (err) {
    assert.instance(err, SecretsError);
    assert.is((err as SecretsError).code, 'UNKNOWN_KEY_ID');
    assert.not.ok((err as Error).message.includes('secret'), 'no plaintext in the message');
  }
  assert.equal(await stored(), before);
});

test('rotation re-encrypts every row under the current key; old keys are no longer needed', async () => {
  const before = await stored();
  assert.equal(before.map((r) => r.k), ['k1', 'k1']);
  const result = await rotateCredentials(db.pool, new Keyring([K2, K1]));
  assert.equal(result, { currentKeyId: 'k2', rotated: 2, alreadyCurrent: 0, fromKeys: { k1: 2 } });
  const after = await stored();
  assert.equal(after.map((r) => r.k), ['k2', 'k2']);
  const onlyNew = new Keyring([K2]);
  assert.equal(decryptCredentials(onlyNew, 'north-oms', after[0]!.credentials, 'k2'), { userId: 'fi-north', password: 'north-oms-secret' });
  assert.equal(decryptCredentials(onlyNew, 'south-oms', after[1]!.credentials, 'k2'), { userId: 'fi-south', password: 'south-oms-secret' });
});

test('a second rotation has nothing to do and writes nothing', async () => {
  const before = await stored();
  const result = await rotateCredentials(db.pool, new Keyring([K2, K1]));
  assert.equal(result, { currentKeyId: 'k2', rotated: 0, alreadyCurrent: 2, fromKeys: {} });
  assert.equal(await stored(), before);
});

test.run();
