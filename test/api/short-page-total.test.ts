// shortPageTotal (api/device-records/endpoint.ts, docs/decisions.md#a-short-page-is-its-own-total): the total a page
// tells by itself, and when it cannot.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { shortPageTotal } from '../../api/device-records/endpoint.js';

const at = (page: number, limit: number, after: string | null = null) => ({ page, limit, after });

test('a page that is not full: the rows before it and its own, exact', () => {
  assert.equal(shortPageTotal(0, at(0, 50)), { total: 0, estimated: false });
  assert.equal(shortPageTotal(7, at(0, 50)), { total: 7, estimated: false });
  assert.equal(shortPageTotal(7, at(3, 50)), { total: 157, estimated: false });
  assert.equal(shortPageTotal(49, at(0, 50)), { total: 49, estimated: false });
});

test('a full page, an empty page past the first, and any keyset page cannot tell', () => {
  assert.is(shortPageTotal(50, at(0, 50)), null, 'full: more may follow');
  assert.is(shortPageTotal(0, at(2, 50)), null, 'empty past page 0: the list may end before the offset');
  assert.is(shortPageTotal(7, at(0, 50, 'k1.cursor')), null, 'keyset: the total is the whole list, not what follows the cursor');
  assert.is(shortPageTotal(0, at(0, 50, 'k1.cursor')), null);
});

test.run();
