// `npm test -- --no-infra` needs Node, bash, git and openssl only (test/helpers/suite-classes.ts,
// docs/decisions.md#what-no-infra-needs): no suite it runs, nor any file of test/ or support/ such a suite imports,
// starts Python, Java, Maven or apt, or the helpers that fetch them. A suite that does belongs in SERVER_DIRS or
// PYTHON_SUITES, where the full run still runs it.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { needsMoreThanNode } from '../helpers/suite-classes.js';

const root = new URL('../..', import.meta.url).pathname;
/** A child process of one of these tools, or a helper that installs or runs them. */
const TOOL = /\b(?:spawn|spawnSync|execFile|execFileSync|exec|execSync)\(\s*['"`](?:python3?|java|mvn|apt-get|apt|pip3?)['"`\s]|\bensurePython\b|\bpythonWith\w*|setup-yadnp3|setup-c104|infra\/chromium\.sh|infra\/up\.sh|\bensurePgTools\b/;

function suites(dir: string): string[] {
  return readdirSync(join(root, dir)).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(join(root, path)).isDirectory()) return suites(path);
    return name.endsWith('.test.ts') ? [path] : [];
  });
}

/** The files of test/ and support/ a file imports, itself included, followed through their own imports. */
function reach(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen;
  seen.add(file);
  const text = readFileSync(join(root, file), 'utf8');
  for (const m of text.matchAll(/(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)) {
    const target = relative(root, resolve(dirname(join(root, file)), m[1]!.replace(/\.js$/, '.ts')));
    if ((target.startsWith('test/') || target.startsWith('support/')) && existsSync(join(root, target))) reach(target, seen);
  }
  return seen;
}

/** A file's code without its comments (which may name the tools), and never this file (whose pattern does). */
const code = (file: string) => (file === 'test/structure/no-infra-tools.test.ts' ? '' : readFileSync(join(root, file), 'utf8').replace(/^\s*(\/\/|\/?\*).*$/gm, ''));
const offenders = (files: string[]) => files.flatMap((suite) => [...reach(suite)].filter((f) => TOOL.test(code(f))).map((f) => `${suite} (${f})`));

test('the check finds a suite that needs Python (it can fail)', () => {
  assert.ok(offenders(['test/multispeak/envelopes.test.ts']).length > 0, 'envelopes installs zeep with Python');
  assert.ok(offenders(['test/bridge/sqs-connect-timeout.test.ts']).length > 0, 'a python3 socket peer');
});

test('no suite that --no-infra runs starts Python, Java, Maven or apt', () => {
  const local = suites('test').filter((f) => !needsMoreThanNode(f));
  assert.ok(local.length > 50, `${local.length} suites`);
  assert.equal(offenders(local), []);
});

test.run();
