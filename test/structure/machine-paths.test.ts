// No tracked file names an absolute path of one machine (a workplace, a home, a fixed temporary folder): a clone
// elsewhere must find everything it reads inside itself (docs/decisions.md#tests-stand-alone). The few allowed
// below each say why, and an allowance that matches nothing fails, so none outlives its reason.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';

const test = suite('no machine paths');
const root = new URL('../..', import.meta.url).pathname;

/** An absolute path of a machine: a workplace, a home, or a fixed temporary folder. */
const MACHINE_PATH = /(?<![\w.~-])\/(?:work|home|root|Users|tmp|var\/tmp)\/[\w.-]/;

/** Tracked files allowed to hold such a path, and why. Each entry must still match something (a test below). */
const ALLOWED: { file: RegExp; text: RegExp; why: string }[] = [
  {
    file: /^infra\/(postgres\.sh|README\.md)$/, text: /\/tmp\/faultline-infra-pg/,
    why: 'the test servers\' PostgreSQL falls back to a folder the postgres user can reach when a checkout\'s parents are private; any Linux machine has /tmp',
  },
  {
    file: /^test\/bridge\/source-from-settings\.test\.ts$/, text: /'\/tmp\/[a-z]'/,
    why: 'values given to the pure settings parser, compared as strings; no file is touched',
  },
];

test('no tracked file names an absolute machine path (but the allowed, each with its reason)', () => {
  const files = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' }).split('\0').filter((f) => f && f !== 'package-lock.json' && f !== 'test/structure/machine-paths.test.ts');
  const hits: string[] = [];
  const used = new Set<number>();
  for (const file of files) {
    let text: string;
    try { text = readFileSync(join(root, file), 'utf8'); } catch { continue; } // deleted in the work tree
    if (text.includes('\0')) continue; // binary
    text.split('\n').forEach((line, i) => {
      if (!MACHINE_PATH.test(line)) return;
      const allowed = ALLOWED.findIndex((a) => a.file.test(file) && a.text.test(line));
      if (allowed >= 0) used.add(allowed);
      else hits.push(`${file}:${i + 1}: ${line.trim().slice(0, 160)}`);
    });
  }
  assert.equal(hits, []);
  assert.equal(ALLOWED.filter((_, i) => !used.has(i)).map((a) => a.why), [], 'an allowance that matches nothing must go');
});

test('the pattern finds what it should (the check can fail)', () => {
  for (const line of ['const DIR = \'/work/shared/\';', 'see /home/dev/faultline', 'cd /root/x', 'BASE=/tmp/data']) assert.ok(MACHINE_PATH.test(line), line);
  for (const line of ['DATA_DIR=/var/lib/faultline', 'file:///opt/faultline/docs', 'test/fixtures/import.json', 'a/work/b', '~/work/x']) assert.not.ok(MACHINE_PATH.test(line), line);
});

test.run();
