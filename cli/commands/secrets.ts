// `faultline secrets rotate`: re-encrypt every stored integration credential under the current key (the
// first of FAULTLINE_SECRET_KEYS / the key file). Rotation: put the new key first, run this, drop the old key.
import { log } from '../../config/log.js';
import { loadKeyring } from '../../secrets/keyring.js';
import { rotateCredentials } from '../../secrets/rotate.js';
import { openRuntime } from '../runtime.js';

export async function run(args: string[]): Promise<void> {
  if (args[0] !== 'rotate') throw new Error('secrets: the only action is `faultline secrets rotate`');
  const runtime = await openRuntime();
  try {
    const keyring = loadKeyring({ configured: runtime.settings.secretKeys, dataDir: runtime.settings.dataDir, embedded: runtime.embedded, onLog: (line) => log.info(line) });
    const r = await rotateCredentials(runtime.pool, keyring);
    process.stdout.write(`secrets rotate: ${r.rotated} re-encrypted under "${r.currentKeyId}", ${r.alreadyCurrent} already current\n`);
  } finally {
    await runtime.close();
  }
}
