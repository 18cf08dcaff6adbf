// One error base (issue 46, docs/decisions.md#one-error-base): every error class in production code goes
// through FaultlineError (errors/base.ts), whose `retriable` the stage runtime, the retry policy and the
// outboxes read; no production code spells that flag another way. The detectors are error-base-check.ts; the
// fixture shows the first failing, inline text the second.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { errorBaseSources, errorsOffBase, otherSpellings } from './error-base-check.js';

const test = suite('error base');
const root = new URL('../..', import.meta.url).pathname;

test('every error class in production code extends the base (directly or through another of ours)', () => {
  assert.equal(errorsOffBase(root, errorBaseSources(root)), [], 'extend FaultlineError (errors/base.ts) with a code of the capability\'s table');
});

test('the enumeration reaches the service, the portal and the base, and no test code or test support', () => {
  const files = errorBaseSources(root);
  for (const f of ['errors/base.ts', 'domain/errors.ts', 'api/errors.ts', 'portal/src/api/client.ts', 'stages/runtime/failure.ts', 'portal/src/views/map.tsx']) assert.ok(files.includes(f), f);
  assert.equal(files.filter((f) => /^(test|bench|support|node_modules)\//.test(f)), []);
});

test('the detector names each class that reaches Error without the base: direct, built-in, a library\'s, inherited, anonymous', () => {
  const fixture = 'test/structure/fixtures/error-base/bypass.ts';
  assert.equal(errorsOffBase(root, [fixture]).sort(), ['Anonymous', 'FromLibrary', 'Inherited', 'Plain', 'Typed'].map((c) => `${fixture}:${c}`));
});

test('no production code reads or writes a retryable / transient spelling of retriable', () => {
  const found = errorBaseSources(root).flatMap((f) => otherSpellings(f, readFileSync(join(root, f), 'utf8')));
  assert.equal(found, [], 'the base spells it `retriable` (errors/base.ts)');
});

test('the spelling detector finds identifiers, properties and keys, not words in comments or text', () => {
  const text = [
    '// a transient fault is retryable',
    "const a = { retryable: true, 'transient': 1 };",
    'if (err.isTransient || err.retryable || a["transient"]) log("transient");',
    'const retriable = true;',
  ].join('\n');
  assert.equal(otherSpellings('x.ts', text), ['x.ts:2:retryable', "x.ts:2:transient", 'x.ts:3:isTransient', 'x.ts:3:retryable', 'x.ts:3:transient']);
});

test.run();
