// The keys that encrypt credentials at rest (docs/decisions.md#multispeak-notifications: AES-256-GCM, key
// from env or file, with a key id so keys can rotate).
//
// Format, in FAULTLINE_SECRET_KEYS (comma separated) or FAULTLINE_SECRET_KEY_FILE (one per line, `#`
// comments): `<id>:<base64 of 32 bytes>`. The FIRST key is current (encrypts); every key decrypts. Rotation:
// put a new key first, run `faultline secrets rotate`, then remove the old key.
//
// The embedded default (no DATABASE_URL) with neither variable set generates one key, once, into
// `<DATA_DIR>/secrets/keys` (mode 0600), so a laptop trial needs no setup; a deployment must configure keys.
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, linkSync, mkdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { inspect } from 'node:util';
import type { SecretKeySettings } from '../config/settings.js';
import { SecretsError } from './errors.js';

export const KEY_BYTES = 32;
const KEY_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

export interface SecretKey {
  readonly id: string;
  readonly key: Buffer;
}

/**
 * An ordered set of keys; `current` encrypts, `key(id)` finds any key for decryption. Printing or
 * serialising a keyring shows the ids only.
 */
export class Keyring {
  readonly #keys: Map<string, SecretKey>;
  readonly current: SecretKey;

  constructor(keys: readonly SecretKey[]) {
    if (keys.length === 0) throw new SecretsError('NO_SECRET_KEYS');
    this.#keys = new Map();
    for (const k of keys) {
      if (!KEY_ID.test(k.id)) throw new SecretsError('BAD_SECRET_KEYS', `secret key id "${k.id.slice(0, 64)}" is not a valid id (letters, digits, . _ -)`);
      if (k.key.length !== KEY_BYTES) throw new SecretsError('BAD_SECRET_KEYS', `secret key "${k.id}" is not ${KEY_BYTES} bytes`);
      if (this.#keys.has(k.id)) throw new SecretsError('BAD_SECRET_KEYS', `secret key id "${k.id}" appears twice`);
      this.#keys.set(k.id, { id: k.id, key: Buffer.from(k.key) });
    }
    this.current = this.#keys.get(keys[0]!.id)!;
  }

  /** Key ids, current first. */
  get ids(): string[] {
    return [...this.#keys.keys()];
  }

  key(id: string): SecretKey | undefined {
    return this.#keys.get(id);
  }

  toJSON(): { current: string; ids: string[] } {
    return { current: this.current.id, ids: this.ids };
  }

  [inspect.custom](): string {
    return `Keyring { current: '${this.current.id}', ids: [${this.ids.map((i) => `'${i}'`).join(', ')}] }`;
  }
}

/**
 * Parses `id:base64` entries separated by commas or newlines. `source` names where the text came from, for
 * messages; a message never contains key material.
 *
 * @example
 *   parseKeyList('k2:' + b64a + ',k1:' + b64b, 'FAULTLINE_SECRET_KEYS') // [{id:'k2',...}, {id:'k1',...}]
 */
export function parseKeyList(text: string, source: string): SecretKey[] {
  const entries = text.split(/[,\n]/).map((e) => e.trim()).filter((e) => e !== '' && !e.startsWith('#'));
  const keys: SecretKey[] = [];
  entries.forEach((entry, i) => {
    const colon = entry.indexOf(':');
    const id = colon > 0 ? entry.slice(0, colon).trim() : '';
    const value = colon > 0 ? entry.slice(colon + 1).trim() : '';
    const where = `${source} entry ${i + 1}`;
    if (!KEY_ID.test(id)) throw new SecretsError('BAD_SECRET_KEYS', `${where}: expected <id>:<base64 key> with an id of letters, digits, . _ -`);
    const key = BASE64.test(value) ? Buffer.from(value, 'base64') : null;
    if (!key || key.length !== KEY_BYTES) throw new SecretsError('BAD_SECRET_KEYS', `${where} (id "${id}"): the key is not ${KEY_BYTES} bytes of base64`);
    keys.push({ id, key });
  });
  if (keys.length === 0) throw new SecretsError('NO_SECRET_KEYS', `${source} holds no key`);
  return keys;
}

/** A fresh random key as one `id:base64` line, for a key file or FAULTLINE_SECRET_KEYS. */
export function newKeyLine(id: string): string {
  if (!KEY_ID.test(id)) throw new SecretsError('BAD_SECRET_KEYS', `secret key id "${id.slice(0, 64)}" is not a valid id (letters, digits, . _ -)`);
  return `${id}:${randomBytes(KEY_BYTES).toString('base64')}`;
}

export interface LoadKeyringOptions {
  /** Settings.secretKeys: FAULTLINE_SECRET_KEYS and FAULTLINE_SECRET_KEY_FILE as read at start. */
  configured: SecretKeySettings;
  /** `<dataDir>/secrets/keys` is the generated key file of the embedded default. */
  dataDir: string;
  /** True for the embedded default (no DATABASE_URL): only then may a key be generated. */
  embedded: boolean;
  /**
   * False for a run that writes nothing (`faultline import --dry-run`): a generated key not there yet is stood in
   * for by a throwaway key in memory, which encrypts only what that run rolls back.
   */
  writeKeyFile?: boolean;
  /** One line per notable event (key generated, key file readable by others). Never key material. */
  onLog?: (line: string) => void;
}

/** Where the embedded default keeps its generated key. */
export function defaultKeyFile(dataDir: string): string {
  return join(dataDir, 'secrets', 'keys');
}

function readKeyFile(path: string, onLog: (line: string) => void): SecretKey[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new SecretsError('BAD_SECRET_KEYS', `secret key file ${path} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  if (process.platform !== 'win32' && (statSync(path).mode & 0o077) !== 0) {
    onLog(`secret key file ${path} is readable by other users; restrict it with chmod 600`);
  }
  return parseKeyList(text, path);
}

/**
 * Writes a new key file unless one exists. Written to a temporary name and hard-linked into place, so two
 * processes starting at once end up with the same single key, and nobody reads a half-written file.
 */
function generateKeyFile(path: string, onLog: (line: string) => void): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(tmp, `# faultline secret keys: <id>:<base64 32 bytes>; the first encrypts. Back this file up.\n${newKeyLine('k1')}\n`, { mode: 0o600, flag: 'wx' });
  try {
    chmodSync(tmp, 0o600); // the umask may have widened nothing, but be explicit
    linkSync(tmp, path);
    onLog(`generated secret key "k1" into ${path}: integration credentials are encrypted with it; back it up, or set FAULTLINE_SECRET_KEYS`);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    unlinkSync(tmp);
  }
}

/**
 * The process's keyring: FAULTLINE_SECRET_KEYS, else FAULTLINE_SECRET_KEY_FILE, else (embedded default
 * only) the generated `<dataDir>/secrets/keys`. Both variables set is refused: which one wins would be a
 * guess.
 */
export function loadKeyring({ configured, dataDir, embedded, writeKeyFile = true, onLog = () => {} }: LoadKeyringOptions): Keyring {
  const { keys: inline, keyFile: file } = configured;
  if (inline && file) throw new SecretsError('BAD_SECRET_KEYS', 'set FAULTLINE_SECRET_KEYS or FAULTLINE_SECRET_KEY_FILE, not both');
  if (inline) return new Keyring(parseKeyList(inline, 'FAULTLINE_SECRET_KEYS'));
  if (file) return new Keyring(readKeyFile(file, onLog));
  if (!embedded) throw new SecretsError('NO_SECRET_KEYS');
  const path = defaultKeyFile(dataDir);
  if (!existsSync(path)) {
    if (!writeKeyFile) return new Keyring(parseKeyList(newKeyLine('k1'), 'a throwaway key'));
    generateKeyFile(path, onLog);
  }
  return new Keyring(readKeyFile(path, onLog));
}
