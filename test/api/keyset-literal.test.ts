// A keyset cursor's instant spelled into a ranged statement's text (api/device-records/keyset.ts
// cursorInstantLiteral, docs/decisions.md#critical-data-walked-per-device): only what decodeCursor accepts, so no
// caller text but digits and ISO punctuation reaches the SQL; anything else is the cursor's 400.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cursorInstantLiteral, decodeCursor, encodeCursor } from '../../api/device-records/keyset.js';
import { ApiError } from '../../api/errors.js';

const test = suite('keyset: the cursor instant as a literal');

test('a cursor the database printed: the same text, quoted and typed, microseconds kept', () => {
  const [at] = decodeCursor(encodeCursor(['2026-10-11 12:00:00.123456+00', 'event', '42']), [{ sql: 'x', type: 'timestamptz' }, { sql: 'y', type: 'text' }, { sql: 'z', type: 'bigint' }]);
  assert.is(cursorInstantLiteral(at!), "'2026-10-11 12:00:00.123456+00'::timestamptz");
});

test('anything else is the cursor\'s 400, never SQL', () => {
  for (const bad of ["2026-10-11 12:00:00+00'; drop table users; --", '2026-10-11', "'", 'now', '2026-13-01 00:00:00+00']) {
    assert.throws(() => cursorInstantLiteral(bad), (e: unknown) => e instanceof ApiError && /after/.test(JSON.stringify((e as ApiError).details ?? e.message)), bad);
  }
});

test.run();
