// A release an operator installs (docs/operations.md#install, docs/decisions.md#a-release-an-operator-installs):
// `npm pack` makes the versioned tarball (prepack compiles the service into dist/ and builds the portal), and
// `npm install --omit=dev <tarball>` in an empty directory gives a `faultline` command that runs with plain
// node: no tsx, no dev dependency, no TypeScript source. The production dependencies are bundled in the tarball
// (bundleDependencies), so the install needs no registry and gets package-lock.json's exact versions
// (docs/decisions.md#installed-dependencies-pinned). The installed command answers --version and
// `migrate --help`, and `faultline start` on the embedded default gets /readyz ready, serves the built portal and
// stops on SIGTERM with exit 0. test/run.ts runs it on every runtime (TEST_ALSO_ON_NODE), never inside the
// stands-alone copy's run (the same HEAD is packed here).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { freePort, startFaultline, type FaultlineProcess } from '../../support/process.js';
import { waitFor } from '../../support/wait-for.js';
import { openTempDir, runCommand } from '../helpers/commands.js';

const test = suite('the release an operator installs');
const root = new URL('../..', import.meta.url).pathname;
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string; dependencies: Record<string, string>; devDependencies: Record<string, string> };

const outer = openTempDir('faultline-release-');
const install = join(outer, 'install');
const installed = join(install, 'node_modules/faultline');
const tarball = join(outer, `faultline-${pkg.version}.tgz`);
// npm as a user's shell runs it, not as the `npm test` that started this suite.
const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
for (const name of ['npm_config_prefix', 'npm_config_global', 'npm_config_omit', 'npm_config_include', 'NODE_OPTIONS']) delete env[name];
let proc: FaultlineProcess | undefined;

test.after(async () => {
  await proc?.stop('SIGKILL');
  rmSync(outer, { recursive: true, force: true });
});

/** Every package directory under a node_modules folder (scoped ones as @scope/name), top level only. */
function packagesIn(dir: string): string[] {
  return readdirSync(dir).filter((n) => !n.startsWith('.')).flatMap((n) => (n.startsWith('@') ? readdirSync(join(dir, n)).map((m) => `${n}/${m}`) : [n]));
}

test('npm pack makes faultline-<version>.tgz with the compiled service, the built portal, the migrations and the docs, no source', async () => {
  const packed = await runCommand('npm', ['pack', '--pack-destination', outer, '--no-fund'], root, env);
  assert.is(packed.code, 0, `npm pack:\n${packed.output.slice(-4000)}`);
  assert.ok(existsSync(tarball), `${tarball} written: ${readdirSync(outer).join(', ')}`);
  const files = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 }).split('\n').filter(Boolean);
  for (const file of ['package.json', 'bin/faultline.js', 'dist/cli/main.js', 'dist/db/migrate.js', 'dist/schemas/migrations/0001_reference_data.sql', 'dist/schemas/config/model-map.json', 'dist/infra/certs.sh', 'dist/portal/dist/index.html', 'docs/operations.md', 'CHANGELOG.md', 'README.md', 'ops/faultline']) {
    assert.ok(files.includes(`package/${file}`), `the tarball holds ${file}`);
  }
  const migrations = readdirSync(join(root, 'schemas/migrations'));
  assert.equal(migrations.filter((m) => !files.includes(`package/dist/schemas/migrations/${m}`)), [], 'every migration is in the tarball');
  assert.equal(files.filter((f) => (f.endsWith('.ts') && !f.startsWith('package/node_modules/')) || f.startsWith('package/test/')), [], 'no TypeScript source of ours and no test in the tarball');
  const bundled = Object.keys(pkg.dependencies).filter((d) => files.includes(`package/node_modules/${d}/package.json`));
  assert.equal(bundled, Object.keys(pkg.dependencies), 'every production dependency is bundled in the tarball');
});

// Offline with an empty npm cache: nothing can come from a registry, so every package installed is one the
// tarball carries, at the version package-lock.json has (not what the ranges allow on the day of the install).
test('npm install --omit=dev of the tarball, offline with an empty cache: the lockfile\'s versions, no tsx, no dev dependency', async () => {
  mkdirSync(install);
  writeFileSync(join(install, 'package.json'), '{ "private": true }\n');
  const cache = join(outer, 'empty-npm-cache');
  const done = await runCommand('npm', ['install', '--omit=dev', '--no-audit', '--no-fund', '--offline', '--cache', cache, tarball], install, env);
  assert.is(done.code, 0, `npm install:\n${done.output.slice(-4000)}`);
  const drift = await runCommand(process.execPath, ['--import', 'tsx', join(root, 'release/locked-tree.ts'), installed], root, env);
  assert.equal(drift, { code: 0, output: '' }, 'the installed tree is package-lock.json\'s (release/locked-tree.ts)');
  const modules = join(install, 'node_modules');
  const present = [...packagesIn(modules), ...packagesIn(join(installed, 'node_modules'))];
  assert.ok(present.includes('faultline') && present.includes('pg'), `installed: ${present.join(', ')}`);
  assert.not.ok(present.includes('tsx') || present.includes('esbuild'), 'no tsx (nor its esbuild)');
  // A dev dependency of ours may be there only as a production package's own dependency (@types/node is one).
  const manifestOf = (p: string) => join(existsSync(join(modules, p)) ? modules : join(installed, 'node_modules'), p, 'package.json');
  const neededByOthers = new Set(present.filter((p) => p !== 'faultline').flatMap((p) => {
    const manifest = JSON.parse(readFileSync(manifestOf(p), 'utf8')) as { dependencies?: Record<string, string> };
    return Object.keys(manifest.dependencies ?? {});
  }));
  assert.equal(Object.keys(pkg.devDependencies).filter((d) => present.includes(d) && !neededByOthers.has(d)), [], 'no dev dependency of ours installed');
  assert.ok(existsSync(join(modules, '.bin/faultline')), 'npm put the faultline command in node_modules/.bin');
});

/** Every JavaScript file under `dir`. */
const scripts = (dir: string): string[] => readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.js')).map((f) => join(dir, f));

test('every file the compiled code opens beside itself (new URL(..., import.meta.url)) is in the installed release', () => {
  const missing: string[] = [];
  let seen = 0;
  for (const file of scripts(join(installed, 'dist'))) {
    for (const m of readFileSync(file, 'utf8').matchAll(/new URL\('([^'`$]+)', import\.meta\.url\)/g)) {
      // package.json is looked up one or two folders up (cli/main.ts): the --version test below reads it.
      if (m[1]!.endsWith('package.json')) continue;
      seen++;
      if (!existsSync(new URL(m[1]!, pathToFileURL(file)))) missing.push(`${file.slice(installed.length + 1)}: ${m[1]}`);
    }
  }
  assert.ok(seen >= 5, `${seen} such paths found`);
  assert.equal(missing, [], 'a file the code reads at run time is missing: add it to RUNTIME_FILES in release/build.ts');
});

test('the installed faultline answers --version and migrate --help', async () => {
  const bin = join(install, 'node_modules/.bin/faultline');
  const version = await runCommand(bin, ['--version'], install, env);
  assert.equal(version, { code: 0, output: `faultline ${pkg.version}\n` });
  const help = await runCommand(bin, ['migrate', '--help'], install, env);
  assert.is(help.code, 0, help.output);
  assert.match(help.output, /^faultline migrate: apply the database migrations/);
});

// As root (this CI) the wrapper drops to a user that is not root, as on a host (it refuses root): `nobody`.
test('ops/faultline runs the installed command with the example environment files read (a kind\'s too)', async () => {
  const etc = join(outer, 'etc');
  mkdirSync(etc);
  for (const f of readdirSync(join(root, 'docs/examples/deploy'))) writeFileSync(join(etc, f), readFileSync(join(root, 'docs/examples/deploy', f)));
  const wrapper = await runCommand(join(installed, 'ops/faultline'), ['--version'], install, {
    ...env, FAULTLINE_ETC: etc, FAULTLINE_HOME: installed, FAULTLINE_USER: process.getuid?.() === 0 ? 'nobody' : userInfo().username, FAULTLINE_KIND: 'alarms',
  });
  assert.equal(wrapper, { code: 0, output: `faultline ${pkg.version}\n` });
});

test('the installed faultline start on the embedded default: /readyz ready, the portal served, SIGTERM exits 0', async () => {
  const [port, pgPort, dnp3Port] = [await freePort(), await freePort(), await freePort()];
  const dataDir = join(outer, 'data');
  proc = startFaultline(['start'], {
    DATA_DIR: dataDir, PORT: String(port), HOST: '', EMBEDDED_PG_PORT: String(pgPort), DNP3_PORT: String(dnp3Port), SIMULATE: '0',
    DATABASE_URL: '', KAFKA_BROKERS: '', SQS_QUEUE_URL: '', NODE_OPTIONS: '', LOG_LEVEL: 'info',
  }, { bin: join(installed, 'bin/faultline.js'), cwd: install });
  const base = `http://127.0.0.1:${port}`;
  await waitFor('/readyz 200', async () => (await fetch(`${base}/readyz`)).status === 200, { timeoutMs: 180_000, intervalMs: 500 }).catch((err: Error) => {
    throw new Error(`${err.message}\n--- output ---\n${proc!.output()}`);
  });
  assert.equal(((await (await fetch(`${base}/readyz`)).json()) as { checks: unknown }).checks, { database: 'up', transport: 'up' });
  const page = await fetch(`${base}/`);
  assert.is(page.status, 200);
  assert.is(await page.text(), readFileSync(join(installed, 'dist/portal/dist/index.html'), 'utf8'), 'GET / is the built portal');
  const script = /src="(\/assets\/[^"]+\.js)"/.exec(readFileSync(join(installed, 'dist/portal/dist/index.html'), 'utf8'))?.[1];
  assert.ok(script && (await fetch(`${base}${script}`)).status === 200, `the portal's script ${script} is served`);
  assert.is((await fetch(`${base}/openapi.json`)).status, 200, '/openapi.json is served');
  assert.is(await proc.stop('SIGTERM'), 0, `exit 0 on SIGTERM:\n${proc.output().slice(-3000)}`);
});

test('a checkout installed without dev dependencies (no tsx) says what to run instead', async () => {
  const checkout = join(outer, 'checkout-without-tsx');
  mkdirSync(join(checkout, 'bin'), { recursive: true });
  mkdirSync(join(checkout, 'cli'));
  writeFileSync(join(checkout, 'bin/faultline.js'), readFileSync(join(root, 'bin/faultline.js')));
  writeFileSync(join(checkout, 'cli/main.ts'), '');
  const r = await runCommand(process.execPath, [join(checkout, 'bin/faultline.js'), '--version'], checkout, env);
  assert.equal(r, { code: 1, output: 'faultline: this checkout runs its TypeScript through tsx, a dev dependency: run `npm ci`, or install the release tarball (docs/operations.md#install)\n' });
});

test.run();
