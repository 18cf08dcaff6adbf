// A suite whose test.before throws says why, as test/run.ts starts it (uvu alone prints only "(0 / 1)").
import { spawnSync } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { suiteArgs } from '../helpers/suite-args.js';

const root = new URL('../../', import.meta.url).pathname;

test('the error of a failing test.before is printed with the hook it came from, and the suite counts it failed', () => {
  const r = spawnSync(process.execPath, suiteArgs('test/runner/suites/failing-set-up.ts'), { cwd: root, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
  const output = r.stdout + r.stderr;
  assert.match(output, 'FAIL  test.before: Error: the set-up of this suite broke');
  assert.match(output, /Passed:\s+0/);
});

test.run();
