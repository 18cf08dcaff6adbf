import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { SecretsError, type SecretsErrorCode } from '../../secrets/errors.js';
import { loadSettings } from '../../config/settings.js';
import { defaultKeyFile, Keyring, loadKeyring, newKeyLine, parseKeyList } from '../../secrets/keyring.js';

const A = randomBytes(32).toString('base64');
const B = randomBytes(32).toString('base64');
const dirs: string[] = [];
/** The keys as `faultline` reads them from this environment (config/settings.ts). */
const keysOf = (env: Record<string, string>) => loadSettings(env).secretKeys;
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'faultline-keyring-'));
  dirs.push(dir);
  return dir;
}

function throwsCode(fn: () => unknown, code: SecretsErrorCode): string {
  try {
    fn();
  } catch (err) {
    assert.instance(err, SecretsError);
    assert.is((err as SecretsError).code, code);
    return (err as Error).message;
  }
  assert.unreachable(`expected ${code}`);
  return '';
}

test('FAULTLINE_SECRET_KEYS: the first key is current, every key decrypts', () => {
  const ring = loadKeyring({ configured: keysOf({ FAULTLINE_SECRET_KEYS: `k2:${A}, k1:${B}` }), dataDir: '/nonexistent', embedded: false });
  assert.is(ring.current.id, 'k2');
  assert.ok(ring.current.key.equals(Buffer.from(A, 'base64')));
  assert.equal(ring.ids, ['k2', 'k1']);
  assert.ok(ring.key('k1')!.key.equals(Buffer.from(B, 'base64')));
  assert.is(ring.key('k0'), undefined);
});

test('FAULTLINE_SECRET_KEY_FILE: one key a line, comments and blank lines ignored', () => {
  const file = join(tempDir(), 'keys');
  writeFileSync(file, `# rotated 2026-01\nk2:${A}\n\n  k1:${B}  \n`, { mode: 0o600 });
  const logs: string[] = [];
  const ring = loadKeyring({ configured: keysOf({ FAULTLINE_SECRET_KEY_FILE: file }), dataDir: '/nonexistent', embedded: false, onLog: (l) => logs.push(l) });
  assert.equal(ring.ids, ['k2', 'k1']);
  assert.equal(logs, []);
});

test('a key file readable by others loads, with a warning', () => {
  const file = join(tempDir(), 'keys');
  writeFileSync(file, `k1:${A}\n`, { mode: 0o644 });
  const logs: string[] = [];
  loadKeyring({ configured: keysOf({ FAULTLINE_SECRET_KEY_FILE: file }), dataDir: '/nonexistent', embedded: false, onLog: (l) => logs.push(l) });
  assert.is(logs.length, 1);
  assert.match(logs[0]!, /chmod 600/);
});

test('bad key lists are refused without quoting the key', () => {
  const short = randomBytes(16).toString('base64');
  const cases: [string, string, SecretsErrorCode][] = [
    ['16-byte key', `k1:${short}`, 'BAD_SECRET_KEYS'],
    ['not base64', `k1:${A.slice(0, 20)}!!${A.slice(22)}`, 'BAD_SECRET_KEYS'],
    ['no id', A, 'BAD_SECRET_KEYS'],
    ['bad id', `k 1:${A}`, 'BAD_SECRET_KEYS'],
    ['duplicate id', `k1:${A},k1:${B}`, 'BAD_SECRET_KEYS'],
    ['only separators', ' , ,', 'NO_SECRET_KEYS'],
  ];
  for (const [name, text, code] of cases) {
    const message = throwsCode(() => new Keyring(parseKeyList(text, 'FAULTLINE_SECRET_KEYS')), code);
    assert.not.ok(message.includes(A) || message.includes(B) || message.includes(short), `${name}: key in message`);
    assert.ok(message.length > 0, name);
  }
});

test('both variables set is refused; neither, outside the embedded default, is NO_SECRET_KEYS', () => {
  throwsCode(() => loadKeyring({ configured: keysOf({ FAULTLINE_SECRET_KEYS: `k1:${A}`, FAULTLINE_SECRET_KEY_FILE: '/x' }), dataDir: tempDir(), embedded: true }), 'BAD_SECRET_KEYS');
  const dataDir = tempDir();
  throwsCode(() => loadKeyring({ configured: keysOf({}), dataDir, embedded: false }), 'NO_SECRET_KEYS');
});

test('embedded default: generates <DATA_DIR>/secrets/keys once, mode 0600, and says so', () => {
  const dataDir = tempDir();
  const logs: string[] = [];
  const first = loadKeyring({ configured: keysOf({}), dataDir, embedded: true, onLog: (l) => logs.push(l) });
  const file = defaultKeyFile(dataDir);
  assert.is(statSync(file).mode & 0o777, 0o600);
  assert.is(logs.length, 1);
  assert.match(logs[0]!, /generated secret key "k1"/);
  assert.not.ok(logs[0]!.includes(first.current.key.toString('base64')));
  const second = loadKeyring({ configured: keysOf({}), dataDir, embedded: true, onLog: (l) => logs.push(l) });
  assert.ok(second.current.key.equals(first.current.key), 'the same key on the next start');
  assert.is(logs.length, 1, 'no second generation');
  assert.match(readFileSync(file, 'utf8'), /^k1:/m);
});

test('a run that writes nothing (import --dry-run) generates no key file: a throwaway key stands in', () => {
  const dataDir = tempDir();
  const logs: string[] = [];
  const ring = loadKeyring({ configured: keysOf({}), dataDir, embedded: true, writeKeyFile: false, onLog: (l) => logs.push(l) });
  assert.is(ring.current.key.length, 32, 'a key to encrypt with');
  assert.not.ok(existsSync(defaultKeyFile(dataDir)), 'no key file written');
  assert.not.ok(existsSync(join(dataDir, 'secrets')), 'nor its folder');
  assert.equal(logs, []);
  const kept = loadKeyring({ configured: keysOf({}), dataDir, embedded: true });
  assert.ok(loadKeyring({ configured: keysOf({}), dataDir, embedded: true, writeKeyFile: false }).current.key.equals(kept.current.key), 'a key file there is read as ever');
});

test('env keys win over the generated file of the embedded default', () => {
  const dataDir = tempDir();
  loadKeyring({ configured: keysOf({}), dataDir, embedded: true });
  const ring = loadKeyring({ configured: keysOf({ FAULTLINE_SECRET_KEYS: `k9:${A}` }), dataDir, embedded: true });
  assert.is(ring.current.id, 'k9');
});

test('printing or serialising a keyring shows ids only', () => {
  const ring = new Keyring(parseKeyList(`k2:${A},k1:${B}`, 'test'));
  for (const text of [inspect(ring), JSON.stringify(ring), String(inspect({ ring }, { depth: 5 }))]) {
    assert.not.ok(text.includes(A) || text.includes(B), text);
    assert.match(text, /k2/);
  }
  assert.equal(JSON.parse(JSON.stringify(ring)), { current: 'k2', ids: ['k2', 'k1'] });
});

test('newKeyLine makes a parseable line with a fresh 32-byte key', () => {
  const [a, b] = [newKeyLine('k3'), newKeyLine('k3')];
  assert.is.not(a, b);
  const [key] = parseKeyList(a, 'line');
  assert.is(key!.id, 'k3');
  assert.is(key!.key.length, 32);
});

test.after(() => { for (const d of dirs) rmSync(d, { recursive: true, force: true }); });
test.run();
