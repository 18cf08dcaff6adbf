// ops/faultline, the wrapper that runs a `faultline` command with the service's environment as the service user
// (docs/operations.md#running-faultline-commands), after an adversarial review: the environment files are read
// as systemd reads them, as data (a `$(...)`, `;`, `<>` or `$x` in a secret arrives literally and runs nothing,
// as root least of all); what systemd would read differently is refused naming file and line, never the value;
// FAULTLINE_KIND cannot leave the folder, FAULTLINE_USER cannot be root, and as root FAULTLINE_ETC/HOME must be
// folders only root can change. The wrapper runs for real against a stub release whose bin/faultline.js prints
// what it was given. As root (this CI) the command runs as `nobody`, so the drop with setpriv is exercised too.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { openTempDir } from '../helpers/commands.js';
import { DEPLOY_DIR, envFiles, readEnvFile } from '../helpers/deploy-files.js';
import { reportTally } from '../helpers/tally.js';

const root = new URL('../..', import.meta.url).pathname;
const WRAPPER = join(root, 'ops/faultline');
const asRoot = process.getuid?.() === 0;
// As root the command must drop to a user that is not root: `nobody` exists on every Linux.
const serviceUser = asRoot ? 'nobody' : userInfo().username;

const dir = openTempDir('faultline-wrapper-');
const home = join(dir, 'release');
mkdirSync(join(home, 'bin'), { recursive: true });
writeFileSync(join(home, 'bin/faultline.js'),
  'console.log(JSON.stringify({ uid: process.getuid(), cwd: process.cwd(), argv: process.argv.slice(2), env: process.env }));\n');
let tried = 0;
let refused = 0;

test.after(() => {
  reportTally('ops-wrapper', { attacksTried: tried, attacksRefused: refused });
  rmSync(dir, { recursive: true, force: true });
});

/** An etc folder holding these files (name -> text), as an operator writes /etc/faultline. */
function etcWith(name: string, files: Record<string, string>): string {
  const etc = join(dir, name);
  mkdirSync(etc);
  for (const [f, text] of Object.entries({ 'common.env': '', 'secrets.env': '', ...files })) writeFileSync(join(etc, f), text);
  return etc;
}

interface Run { status: number | null; stderr: string; ran?: { uid: number; cwd: string; argv: string[]; env: Record<string, string> } }
function wrapper(vars: Record<string, string>, args: string[] = []): Run {
  const r = spawnSync('bash', [WRAPPER, ...args], {
    encoding: 'utf8', cwd: dir,
    env: { PATH: process.env.PATH, FAULTLINE_HOME: home, FAULTLINE_USER: serviceUser, CALLER_ONLY: 'from the caller', ...vars },
  });
  return { status: r.status, stderr: r.stderr, ...(r.stdout ? { ran: JSON.parse(r.stdout) as Run['ran'] } : {}) };
}

test('values arrive literally as systemd reads them: nothing in a value runs, as root least of all', () => {
  const pwned = join(dir, 'pwned');
  const lines: Record<string, string> = {
    DATABASE_URL: `postgres://u:Xy7;touch ${pwned}-semicolon;id>${pwned}-redirect@db/x`,
    JWT_SECRET: `ab$(touch ${pwned}-subst)cd\`touch ${pwned}-backtick\``,
    ALARM_SMTP_FROM: 'Faultline Alarms <alarms@example.internal>',
    PASSWORD_WITH_DOLLAR: 'pa$HOME$x${y}word',
    INTERIOR_QUOTES: 'it"s a \'value\'',
  };
  const etc = etcWith('literal', {
    'secrets.env': `# a comment\n  ; another\n\n${Object.entries(lines).map(([k, v]) => `${k}=${v}`).join('\n')}\n`,
    'common.env': "SINGLE='  kept $x \\n '\nDOUBLE=\"no $expansion\"\nBLANKS=   trimmed value  \r\nEMPTY=\nLATER=common\n",
    'alarms.env': 'LATER=kind',
  });
  tried += Object.keys(lines).length;
  const r = wrapper({ FAULTLINE_ETC: etc, FAULTLINE_KIND: 'alarms' }, ['alarms', 'list', '$(id)']);
  assert.is(r.status, 0, r.stderr);
  assert.equal(readdirSync(dir).filter((f) => f.startsWith('pwned')), [], 'nothing in a value was executed');
  for (const [k, v] of Object.entries(lines)) assert.is(r.ran!.env[k], v, `${k} arrives literally`);
  refused += Object.keys(lines).length;
  assert.is(r.ran!.env.SINGLE, '  kept $x \\n ', 'single quotes: verbatim inside, removed');
  assert.is(r.ran!.env.DOUBLE, 'no $expansion', 'double quotes without escapes: removed, no expansion');
  assert.is(r.ran!.env.BLANKS, 'trimmed value', 'blanks around the value dropped, inside kept (CR too)');
  assert.is(r.ran!.env.EMPTY, '');
  assert.is(r.ran!.env.LATER, 'kind', 'the kind\'s file is read last, as the unit reads it');
  assert.equal(r.ran!.argv, ['alarms', 'list', '$(id)'], 'arguments passed as given');
  assert.is(r.ran!.cwd, dir, 'no cd: the command runs where it was typed (the unit sets its own WorkingDirectory)');
  assert.is(r.ran!.env.CALLER_ONLY, undefined, 'the caller\'s environment is not the service\'s');
  const [name, , uid, , , userHome] = spawnSync('getent', ['passwd', serviceUser], { encoding: 'utf8' }).stdout.trim().split(':');
  assert.equal([r.ran!.uid, r.ran!.env.HOME, r.ran!.env.USER, r.ran!.env.LOGNAME], [Number(uid), userHome, name, name], 'the service user\'s uid and HOME, not root\'s');
});

test('a line systemd would read differently is refused, naming file and line, never the value', () => {
  const cases: Array<[string, string]> = [
    ['BACKSLASH=s3cr3t\\;x', 'a backslash is an escape to systemd'],
    ['CONTINUED=s3cr3t\\', 'a backslash is an escape to systemd'],
    ["SPANS='s3cr3t", 'a single-quoted value must end with its quote'],
    ['ESCAPED="s3cr3t\\"x"', 'use single quotes'],
    ['TRAILING="s3cr3t"x', 'use single quotes'],
    ['export S3CR3T=1', 'is not NAME=value'],
    ['SPACED = s3cr3t', 'is not NAME=value'],
    ['$(touch pwned)=s3cr3t', 'is not NAME=value'],
  ];
  for (const [line, reason] of cases) {
    tried++;
    const etc = etcWith(`refused-${tried}`, { 'secrets.env': `# first\nOK=1\n${line}\n` });
    const r = wrapper({ FAULTLINE_ETC: etc });
    assert.is(r.status, 2, `${line}: ${r.stderr}`);
    assert.is(r.ran, undefined, `${line}: the command did not run`);
    assert.match(r.stderr, `${etc}/secrets.env line 3`, `${line}: file and line named`);
    assert.match(r.stderr, reason, line);
    assert.not.match(r.stderr, 's3cr3t', `${line}: the value is not shown`);
    refused++;
  }
  assert.not.ok(existsSync(join(dir, 'pwned')));
});

test('a file\'s variable named like one of the wrapper\'s (node, home) stops it, never changes what runs', () => {
  for (const name of ['node', 'home', 'setpriv']) {
    tried++;
    const r = wrapper({ FAULTLINE_ETC: etcWith(`internal-${name}`, { 'common.env': `${name}=${dir}/elsewhere\n` }) });
    assert.is(r.ran, undefined, `${name}: ${r.stderr}`);
    assert.ok(r.status !== 0 && r.stderr.includes(`${name}: readonly variable`), `${name}: ${r.status} ${r.stderr}`);
    refused++;
  }
});

test('FAULTLINE_KIND is a kind\'s name, never a path', () => {
  const outside = join(dir, 'outside');
  mkdirSync(outside);
  writeFileSync(join(outside, 'x.env'), 'INJECTED=1\n');
  const etc = etcWith('kinds', { 'api-2.env': 'KIND=api-2\n' });
  for (const kind of ['../outside/x', `../../${outside}/x`, 'API', 'a/b', 'a b', '.']) {
    tried++;
    const r = wrapper({ FAULTLINE_ETC: etc, FAULTLINE_KIND: kind });
    assert.is(r.status, 2, `${kind}: ${r.stderr}`);
    assert.match(r.stderr, 'FAULTLINE_KIND refused');
    assert.is(r.ran, undefined);
    refused++;
  }
  assert.is(wrapper({ FAULTLINE_ETC: etc, FAULTLINE_KIND: 'api-2' }).ran?.env.KIND, 'api-2', 'a second process\'s kind is accepted');
});

test('FAULTLINE_USER=root (or any uid 0) is refused, and /etc/faultline\'s secrets go to the faultline user only', () => {
  const etc = etcWith('user', {});
  for (const user of ['root', '0']) {
    tried++;
    const r = wrapper({ FAULTLINE_ETC: etc, FAULTLINE_USER: user });
    assert.is(r.status, 2, r.stderr);
    assert.is(r.ran, undefined);
    assert.match(r.stderr, `FAULTLINE_USER=${user} refused`);
    refused++;
  }
  assert.match(wrapper({ FAULTLINE_ETC: etc, FAULTLINE_USER: 'no-such-user-here' }).stderr, 'no such user');
  if (asRoot && existsSync('/etc/faultline')) console.log('/etc/faultline exists here: the test does not read it');
  else if (asRoot) {
    // The deployment's files go to its service user only: no picking another user to hand its secrets to.
    tried++;
    const r = wrapper({ FAULTLINE_ETC: '/etc/faultline' });
    assert.is(r.status, 2, r.stderr);
    assert.match(r.stderr, `FAULTLINE_USER=${serviceUser} refused`);
    refused++;
  }
});

test('as root, FAULTLINE_ETC and FAULTLINE_HOME are honoured only for folders no one but root can change', () => {
  if (!asRoot) { console.log('not root: overrides carry no privilege here, the root-only rule was not exercised'); return; }
  const open = etcWith('writable-etc', { 'secrets.env': 'FROM_WRITABLE=1\n' });
  chmodSync(open, 0o777);
  const openHome = join(dir, 'writable-home');
  mkdirSync(join(openHome, 'bin'), { recursive: true });
  writeFileSync(join(openHome, 'bin/faultline.js'), readFileSync(join(home, 'bin/faultline.js')));
  chmodSync(openHome, 0o775);
  const notRootOwned = etcWith('nobody-etc', {});
  spawnSync('chown', ['nobody', notRootOwned]);
  const attempts: Array<[Record<string, string>, string]> = [
    [{ FAULTLINE_ETC: open }, 'FAULTLINE_ETC'],
    [{ FAULTLINE_ETC: notRootOwned }, 'FAULTLINE_ETC'],
    [{ FAULTLINE_ETC: etcWith('trusted', {}), FAULTLINE_HOME: openHome }, 'FAULTLINE_HOME'],
  ];
  for (const [vars, name] of attempts) {
    tried++;
    const r = wrapper(vars);
    assert.is(r.status, 2, r.stderr);
    assert.is(r.ran, undefined);
    assert.match(r.stderr, `${name}=`);
    assert.match(r.stderr, 'only root can change');
    refused++;
  }
});

test('each example env file reads in the wrapper exactly as systemd reads it (test/helpers/deploy-files.ts)', () => {
  for (const f of envFiles().filter((f) => f !== 'common.env' && f !== 'secrets.env')) {
    const kind = f.replace(/\.env$/, '');
    const etc = join(dir, `examples-${kind}`);
    mkdirSync(etc);
    for (const g of ['common.env', 'secrets.env', f]) writeFileSync(join(etc, g), readFileSync(join(DEPLOY_DIR, g)));
    const r = wrapper({ FAULTLINE_ETC: etc, FAULTLINE_KIND: kind });
    assert.is(r.status, 0, `${f}: ${r.stderr}`);
    for (const g of ['common.env', 'secrets.env', f]) for (const [k, v] of readEnvFile(g)) assert.is(r.ran!.env[k], v, `${g}: ${k}`);
  }
});

test('the wrapper runs the node the systemd units run', () => {
  const node = /^node=(\S+)$/m.exec(readFileSync(WRAPPER, 'utf8'))?.[1];
  for (const unit of ['faultline@.service', 'faultline-migrate.service']) {
    const exec = /^ExecStart=(\S+) /m.exec(readFileSync(join(root, 'docs/examples/systemd', unit), 'utf8'))?.[1];
    assert.is(node, exec, `${unit}: ExecStart's node is the wrapper's`);
  }
});

test.run();
