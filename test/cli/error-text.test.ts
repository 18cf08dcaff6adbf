// The CLI's top-level handler prints one sentence for any rejection, Error or not.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { errorText } from '../../cli/error-text.js';

test('an Error gives its message', () => {
  assert.is(errorText(new Error('import: give the file')), 'import: give the file');
  assert.is(errorText(new TypeError('')), 'TypeError');
});

test('a rejection that is not an Error still gives a sentence', () => {
  assert.match(errorText(undefined), 'failed without saying why');
  assert.match(errorText(null), 'failed without saying why');
  assert.is(errorText('postgres exited'), 'postgres exited');
  assert.is(errorText({ code: 1 }), 'failed: {"code":1}');
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  assert.is(errorText(cyclic), 'failed: [object Object]');
});

test.run();
