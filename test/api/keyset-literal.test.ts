// A keyset cursor's instant as a ranged statement's marker, spelled into its text past the prepared texts' cap
// (api/device-records/keyset.ts cursorInstant, docs/decisions.md#critical-data-walked-per-device): only what
// decodeCursor accepts, so no caller text but digits and ISO punctuation reaches the SQL; anything else is the
// cursor's 400.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cursorInstant, decodeCursor, encodeCursor } from '../../api/device-records/keyset.js';
import { ApiError } from '../../api/errors.js';

const test = suite('keyset: the cursor instant as a marker\'s value');

test('a cursor the database printed: the same text, microseconds kept', () => {
  const [at] = decodeCursor(encodeCursor(['2026-10-11 12:00:00.123456+00', 'event', '42']), [{ sql: 'x', type: 'timestamptz' }, { sql: 'y', type: 'text' }, { sql: 'z', type: 'bigint' }]);
  assert.is(cursorInstant(at!), '2026-10-11 12:00:00.123456+00');
});

test('anything else is the cursor\'s 400, never SQL', () => {
  for (const bad of ["2026-10-11 12:00:00+00'; drop table users; --", '2026-10-11', "'", 'now', '2026-13-01 00:00:00+00']) {
    assert.throws(() => cursorInstant(bad), (e: unknown) => e instanceof ApiError && /after/.test(JSON.stringify((e as ApiError).details ?? e.message)), bad);
  }
});

const COLUMNS = [{ sql: 'x', type: 'timestamptz' }, { sql: 'z', type: 'bigint' }] as const;
const decodes = (at: string, id = '1') => { try { decodeCursor(encodeCursor([at, id]), COLUMNS); return true; } catch { return false; } };

test('a cursor decodes only when PostgreSQL reads its instant and id: a real day, year 1 on, offsets to 15 h, bigint', () => {
  for (const ok of ['2024-02-29 00:00:00+00', '2000-02-29 23:59:59.999999-15:59:59', '0001-01-01 00:00:00+15', '0099-12-31 00:00:00+00', '9999-12-31 23:59:59-15:59']) assert.ok(decodes(ok), ok);
  for (const bad of ['2025-02-29 00:00:00+00', '1900-02-29 00:00:00+00', '2025-04-31 00:00:00+00', '0000-01-01 00:00:00+00', '2025-01-01 00:00:00+16', '2025-01-01 00:00:00-99']) assert.not.ok(decodes(bad), bad);
  assert.ok(decodes('2025-01-01 00:00:00+00', '9223372036854775807'));
  assert.ok(decodes('2025-01-01 00:00:00+00', '-9223372036854775808'));
  assert.not.ok(decodes('2025-01-01 00:00:00+00', '9223372036854775808'));
  assert.not.ok(decodes('2025-01-01 00:00:00+00', '-9223372036854775809'));
});

test.run();
