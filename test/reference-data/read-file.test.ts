import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ImportError } from '../../reference-data/errors.js';
import { readImportFile } from '../../reference-data/read-file.js';

const dir = mkdtempSync(join(tmpdir(), 'faultline-import-'));
const file = (name: string, text: string) => { const p = join(dir, name); writeFileSync(p, text); return p; };

async function rejects(path: string): Promise<ImportError> {
  try {
    await readImportFile(path);
  } catch (err) {
    assert.instance(err, ImportError);
    return err as ImportError;
  }
  assert.unreachable('expected an ImportError');
  throw new Error('unreachable');
}

test('a JSON file comes back parsed, a BOM tolerated', async () => {
  assert.equal(await readImportFile(file('ok.json', '\ufeff{"organizations": []}')), { organizations: [] });
});

test('a missing file is IMPORT_FILE_UNREADABLE', async () => {
  const e = await rejects(join(dir, 'nope.json'));
  assert.is(e.code, 'IMPORT_FILE_UNREADABLE');
  assert.match(e.message, /ENOENT/);
});

test('bad JSON is IMPORT_FILE_NOT_JSON with a line and column, never quoting the text', async () => {
  const e = await rejects(file('bad.json', '{\n  "users": [{"password": "hunter2-secret",}]\n}'));
  assert.is(e.code, 'IMPORT_FILE_NOT_JSON');
  assert.match(e.message, /line 2, column \d+/);
  assert.not.ok(e.message.includes('hunter2'));
  const bare = await rejects(file('bare.json', '{"users": [{"password": hunter2-secret}]}'));
  assert.is(bare.code, 'IMPORT_FILE_NOT_JSON');
  assert.not.ok(bare.message.includes('hunter2'), bare.message);
});

test.after(() => rmSync(dir, { recursive: true, force: true }));
test.run();
