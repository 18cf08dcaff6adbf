// The repository stands alone (docs/decisions.md#tests-stand-alone): a copy of HEAD (`git archive`) in an empty
// temporary directory, with nothing beside it, installs from the lockfile (`npm ci`) and passes
// `npm test -- --no-infra` there. The copy gets a fresh git repository of its own (the suites that list tracked
// files need one, as any clone has), none of this checkout's history. It reads what HEAD holds: commit first.
// test/run.ts runs this suite once, never again on a TEST_ALSO_ON_NODE runtime and never inside the run it
// starts (STANDS_ALONE_INNER_RUN). No absolute machine path in the tree: machine-paths.test.ts.
// Where it can (root, util-linux's unshare), the copy's install and run also cannot see the top-level folder
// that holds this checkout (where a folder beside it, or a developer's absolute path, would be): a private
// mount namespace lays an empty tmpfs over it, so a test still reading from there fails here too.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { openTempDir, runCommand as run } from '../helpers/commands.js';

const test = suite('the repository stands alone');
const root = new URL('../..', import.meta.url).pathname;
const git = (args: string[], cwd: string) => execFileSync('git', args, { cwd, encoding: 'utf8' });

/**
 * The top-level folder of this checkout (its first path component) when it can be hidden from the copy: running as
 * root with unshare, the copy and Node itself outside it. Null otherwise: the copy then runs in plain sight.
 */
function folderToHide(copy: string): string | null {
  const top = `/${root.split('/')[1]}`;
  const inside = (path: string) => path === top || path.startsWith(`${top}/`);
  if (process.getuid?.() !== 0 || inside(copy) || inside(process.execPath)) return null;
  return spawnSync('unshare', ['--mount', '--propagation', 'private', 'true']).status === 0 ? top : null;
}

/** `cmd args` as run with `hidden` covered by an empty tmpfs in a mount namespace of its own. */
function hidingFrom(hidden: string | null, cmd: string, args: string[]): [string, string[]] {
  if (!hidden) return [cmd, args];
  return ['unshare', ['--mount', '--propagation', 'private', 'bash', '-c', 'mount -t tmpfs -o size=1m,mode=0755 hidden "$0" && exec "$@"', hidden, cmd, ...args]];
}

test('a copy of HEAD alone in an empty directory installs and passes `npm test -- --no-infra`', async () => {
  const outer = openTempDir('faultline-alone-');
  const copy = join(outer, 'faultline');
  mkdirSync(copy);
  try {
    execFileSync('bash', ['-c', `git archive --format=tar HEAD | tar -x -C '${copy}'`], { cwd: root });
    assert.equal(readdirSync(outer), ['faultline'], 'nothing beside the copy');
    const env: NodeJS.ProcessEnv = { ...process.env, STANDS_ALONE_INNER_RUN: '1', NO_COLOR: '1' };
    // The inner run is the README's command as a user types it: not CI (which refuses --no-infra), one runtime.
    for (const name of ['CI', 'TEST_ALSO_ON_NODE', 'INFRA_PORT_OFFSET', 'INFRA_STATE_DIR', 'npm_config_prefix']) delete env[name];
    for (const args of [['init', '-q'], ['add', '-A'], ['-c', 'user.name=copy', '-c', 'user.email=copy@example.invalid', 'commit', '-qm', 'copy of HEAD']]) git(args, copy);

    const hidden = folderToHide(copy);
    console.log(`  the copy: ${copy}; ${hidden ? `${hidden} hidden from it` : 'nothing hidden (not root, no unshare, or the copy or Node is inside the checkout\'s folder)'}`);
    const install = await run(...hidingFrom(hidden, 'npm', ['ci', '--prefer-offline', '--no-audit', '--no-fund']), copy, env);
    assert.is(install.code, 0, `npm ci in the copy:\n${install.output.slice(-4000)}`);
    const tests = await run(...hidingFrom(hidden, 'npm', ['test', '--', '--no-infra']), copy, env);
    const summary = /^(\d+) passed, (\d+) failed/m.exec(tests.output.split('\n').slice(-3).join('\n'));
    assert.ok(summary && tests.code === 0 && summary[2] === '0', `npm test -- --no-infra in the copy:\n${tests.output.slice(-6000)}`);
    assert.ok(Number(summary![1]) > 1000, `${summary![1]} passed: the unit suites ran`);
    console.log(`  the copy: ${summary![0]}`);
  } finally {
    rmSync(outer, { recursive: true, force: true });
  }
});

test.run();
