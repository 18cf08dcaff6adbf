// A suite that never ends, with a process of its own that would outlive it (test/runner/time-limit.test.ts
// runs it under a short time limit). The child's pid is printed so the test can check it was ended too.
import { spawn } from 'node:child_process';
import { test } from 'uvu';

test('hangs', async () => {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  console.log(`CHILD ${child.pid}`);
  await new Promise(() => { setInterval(() => {}, 1000); });
});
test.run();
